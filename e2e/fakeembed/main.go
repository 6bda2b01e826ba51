// Command fakeembed is an embeddings provider for bf's tests, speaking the command
// protocol (one {"text": …} line per text on stdin, one {"embedding": […]} line per text on
// stdout). It runs no model: a text's vector counts the character trigrams of its words
// (each word framed as ^word$), hashed into 512 dimensions. Words sharing a root that the
// search index's stemmer keeps apart (reconcile and reconciliation, decided and decision)
// then have close vectors while sharing no indexed word, which is what the dense strategy
// must show; nothing in it knows any particular text.
//
// With -log FILE it appends one line per text it embedded, so a test can count calls.
// With -mode-file FILE it misbehaves as that file says when it exists: "hang" answers
// never, "short" gives vectors of 256 dimensions, "mixed" gives every second text of a run
// 256. With -quota FILE, when FILE exists, it holds how many texts may still be embedded: a run
// whose texts exceed it fails (exit 1, nothing printed), so a test can make a provider
// fail half-way through a pass; each run that succeeds takes its texts off.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// dims is the vector length.
const dims = 512

func main() {
	log := flag.String("log", "", "append one line per embedded text to this file")
	quota := flag.String("quota", "", "a file holding how many texts may still be embedded")
	modeFile := flag.String("mode-file", "", "misbehave as this file says: hang, short or mixed")
	flag.Parse()
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
	var texts []string
	for in.Scan() {
		var line struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			fmt.Fprintln(os.Stderr, "fakeembed: input line is not {\"text\": …}")
			os.Exit(1)
		}
		texts = append(texts, line.Text)
	}
	if *quota != "" {
		if err := spend(*quota, len(texts)); err != nil {
			fmt.Fprintln(os.Stderr, "fakeembed:", err)
			os.Exit(1)
		}
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	mode := ""
	if *modeFile != "" {
		data, _ := os.ReadFile(*modeFile)
		mode = strings.TrimSpace(string(data))
	}
	for n, text := range texts {
		// Logged as soon as it is taken on, so a hanging run still shows what it was asked.
		if logf != nil {
			fmt.Fprintln(logf, strings.Join(strings.Fields(text), " "))
		}
		v := embed(text)
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

// spend takes n texts off the quota file, or fails when it holds fewer; without the file
// there is no quota.
func spend(file string, n int) error {
	raw, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	left, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return fmt.Errorf("quota file %s holds no number", file)
	}
	if n > left {
		return fmt.Errorf("quota exhausted: %d texts asked, %d left", n, left)
	}
	return os.WriteFile(file, []byte(strconv.Itoa(left-n)), 0o644)
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
