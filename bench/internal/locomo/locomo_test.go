package locomo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "conv-99.json")
	data := `{"speaker_a": "Ann", "speaker_b": "Bo",
	 "session_2_date_time": "9:05 am on 3 June, 2023",
	 "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "Later."}],
	 "session_1_date_time": "1:56 pm on 8 May, 2023",
	 "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "Hi!"}, {"speaker": "Bo", "dia_id": "D1:2", "text": "Hello."}],
	 "session_3_date_time": "1:00 pm on 4 June, 2023",
	 "qa": [{"question": "Who?", "answer": "Ann", "evidence": ["D1:1"], "category": 4},
	        {"question": "When?", "answer": "May", "evidence": ["D1:2; D2:1"], "category": 2},
	        {"question": "Trick?", "adversarial_answer": "no", "evidence": ["D1:1"], "category": 5},
	        {"question": "None?", "answer": "x", "evidence": [], "category": 1}]}`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	may := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	want := &Conversation{Name: "conv-99",
		Turns: []Turn{
			{ID: "D1:1", Speaker: "Ann", Text: "Hi!", At: may},
			{ID: "D1:2", Speaker: "Bo", Text: "Hello.", At: may.Add(time.Second)},
			{ID: "D2:1", Speaker: "Bo", Text: "Later.", At: time.Date(2023, 6, 3, 9, 5, 0, 0, time.UTC)},
		},
		Questions: []Question{
			{Text: "Who?", Category: 4, Evidence: []string{"D1:1"}},
			{Text: "When?", Category: 2, Evidence: []string{"D1:2", "D2:1"}},
		}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
}
