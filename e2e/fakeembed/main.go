// Command fakeembed is an embeddings provider for bf's tests, speaking the command
// protocol (one {"text": …} line per text on stdin, one {"embedding": […]} line per text on
// stdout). It runs no model: a text's vector counts the character trigrams of its words
// (each word framed as ^word$), hashed into 512 dimensions. Words sharing a root that the
// search index's stemmer keeps apart (reconcile and reconciliation, decided and decision)
// then have close vectors while sharing no indexed word, which is what the dense strategy
// must show; nothing in it knows any particular text.
//
// With -log FILE it appends one line per text it read, so a test can count calls. With
// -mode-file FILE it misbehaves as that file says when it exists: "hang" answers never,
// "short" gives vectors of 256 dimensions, "mixed" gives every second text of a run 256.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"time"
	"unicode"
)

// dims is the vector length.
const dims = 512

func main() {
	log := flag.String("log", "", "append one line per embedded text to this file")
	modeFile := flag.String("mode-file", "", "misbehave as this file says: hang, short or mixed")
	flag.Parse()
	mode := ""
	if *modeFile != "" {
		data, _ := os.ReadFile(*modeFile)
		mode = strings.TrimSpace(string(data))
	}
	var logf *os.File
	if *log != "" {
		f, err := os.OpenFile(*log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeembed:", err)
			os.Exit(1)
		}
		defer f.Close()
		logf = f
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := 0; in.Scan(); n++ {
		var line struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			fmt.Fprintln(os.Stderr, "fakeembed: input line is not {\"text\": …}")
			os.Exit(1)
		}
		if logf != nil {
			fmt.Fprintln(logf, strings.Join(strings.Fields(line.Text), " "))
		}
		v := embed(line.Text)
		switch {
		case mode == "hang":
			time.Sleep(time.Hour)
		case mode == "short", mode == "mixed" && n%2 == 1:
			v = v[:dims/2]
		}
		b, _ := json.Marshal(map[string][]float32{"embedding": v})
		out.Write(append(b, '\n'))
	}
}

// embed is a text's vector.
func embed(text string) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		r := []rune("^" + w + "$")
		for i := 0; i+3 <= len(r); i++ {
			h := fnv.New32a()
			h.Write([]byte(string(r[i : i+3])))
			v[h.Sum32()%dims]++
		}
	}
	return v
}
