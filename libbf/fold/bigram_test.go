package fold

import "testing"

func TestBigrams(t *testing.T) {
	for in, want := range map[string]string{
		"果樹園の記録":               "果樹 樹園 園の の記 記録",
		"ledger 記録 and 東":      "記録 東",
		"ภาษาไทย":              "ภา าษ ษา าไ ไท ทย",
		"한국어 문서":               "한국 국어 문서",
		"no unspaced text":     "",
		"café ñoño — “quoted”": "",
		"é東":                   "東",
	} {
		if got := Bigrams(in); got != want {
			t.Errorf("Bigrams(%q) = %q, want %q", in, got, want)
		}
	}
	q, err := Parse("記録 ledger 果樹園")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := BigramQuery(q.Terms), `"記録" OR "果樹 樹園"`; got != want {
		t.Errorf("BigramQuery = %q, want %q", got, want)
	}
}
