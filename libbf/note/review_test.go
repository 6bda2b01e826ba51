package note

import "testing"

func TestReview(t *testing.T) {
	for _, tc := range []struct{ front, want string }{
		{"title: A\n", ""},
		{"review: unreviewed\n", ReviewUnreviewed},
		{"review: reviewed\n", ReviewReviewed},
		{"review: Reviewed\n", ReviewReviewed},
		{"review: maybe\n", ReviewUnreviewed},
		{"review: true\n", ReviewUnreviewed},
	} {
		n, err := Parse("projects/a.md", []byte("---\n"+tc.front+"---\n# A\n"), OKF)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Meta.Review(); got != tc.want {
			t.Errorf("%q: Review() = %q, want %q", tc.front, got, tc.want)
		}
	}
}
