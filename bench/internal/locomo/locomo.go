// Package locomo reads the LoCoMo benchmark's conversations (Maharana et al., ACL 2024):
// long conversations between two people, and questions whose evidence is named turns. The
// memory benchmark and the retrieval benchmark read them alike.
package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Conversation is one LoCoMo file: its turns in order, with the time of their session,
// and its questions of categories 1–4.
type Conversation struct {
	Name      string
	Turns     []Turn
	Questions []Question
}

// Turn is one thing one person said.
type Turn struct {
	ID      string // dia_id, such as D1:3
	Speaker string
	Text    string
	At      time.Time
}

// Question is a question of categories 1–4 with the ids of its evidence turns.
type Question struct {
	Text     string
	Category int
	Evidence []string
}

// Files lists the conversation files of a folder, in name order.
func Files(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "conv-*.json"))
}

var sessionKey = regexp.MustCompile(`^session_([0-9]+)$`)

// Load reads one conv-NN.json: sessions in number order, each turn stamped
// with its session's date and one second per turn, so turns keep their order in time.
func Load(file string) (*Conversation, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	c := &Conversation{Name: strings.TrimSuffix(filepath.Base(file), ".json")}
	var sessions []int
	for key := range raw {
		if m := sessionKey.FindStringSubmatch(key); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
	}
	slices.Sort(sessions)
	for _, n := range sessions {
		var when string
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d_date_time", n)], &when); err != nil {
			return nil, fmt.Errorf("%s: session_%d_date_time: %w", file, n, err)
		}
		at, err := time.Parse("3:04 pm on 2 January, 2006", when)
		if err != nil {
			return nil, fmt.Errorf("%s: session_%d_date_time: %w", file, n, err)
		}
		var turns []struct {
			ID      string `json:"dia_id"`
			Speaker string `json:"speaker"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d", n)], &turns); err != nil {
			return nil, fmt.Errorf("%s: session_%d: %w", file, n, err)
		}
		for i, t := range turns {
			c.Turns = append(c.Turns, Turn{ID: t.ID, Speaker: t.Speaker, Text: t.Text, At: at.Add(time.Duration(i) * time.Second)})
		}
	}
	var qa []struct {
		Question string   `json:"question"`
		Category int      `json:"category"`
		Evidence []string `json:"evidence"`
	}
	if err := json.Unmarshal(raw["qa"], &qa); err != nil {
		return nil, fmt.Errorf("%s: qa: %w", file, err)
	}
	for _, q := range qa {
		if q.Category < 1 || q.Category > 4 {
			continue // category 5 is adversarial: its answer is not in the conversation
		}
		var ev []string
		for _, e := range q.Evidence {
			// One evidence entry holds two ids ("D8:6; D9:17").
			for _, id := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ' ' || r == ',' }) {
				if !slices.Contains(ev, id) {
					ev = append(ev, id)
				}
			}
		}
		if len(ev) > 0 {
			c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: ev})
		}
	}
	return c, nil
}
