// Command fakeharness is a scripted assistant harness for bf's tests: it answers by rules
// instead of a model. Rules come from its arguments, unless the prompt it reads on stdin
// holds lines "fake: RULES", whose rules then replace them (so a message can say what its
// answer does):
//
//	say WORDS…;        print WORDS (up to the next ";")
//	echo               print the prompt
//	answer             print "answer to TEXT" for each message of the context file
//	reply SAY [AFTER]  print {"result":{"say":SAY,"wake":…}}: SAY "-" is null, AFTER the
//	                   seconds of a wake
//	empty              print nothing
//	invalid            print text that is not JSON
//	flood              print 8 MiB
//	fail               exit 3
//	failfirst FILE N   fail while FILE (a counter it increments) holds at most N
//	act FILE           append a line to FILE: an external effect
//	crash              end at once with SIGKILL
//	sleep SECONDS      wait
//	hang               wait forever
//	context FILE       copy the context file ({{context}}, after --context) to FILE
//	stdin FILE         copy the prompt to FILE
//	hold               while run/hold.harness exists: write run/ready.harness.PID and
//	                   wait for run/go.harness
//
// --context PATH names the context file; --schema JSON is accepted and ignored.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	prompt, _ := io.ReadAll(os.Stdin)
	var ctxFile string
	var rules []string
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--context":
			i++
			if i < len(args) {
				ctxFile = args[i]
			}
		case "--schema":
			i++
		default:
			rules = append(rules, args[i])
		}
	}
	var told []string
	for _, line := range strings.Split(string(prompt), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "fake: "); ok {
			told = append(told, strings.Fields(rest)...)
		}
	}
	if told != nil {
		rules = told
	}
	var out bytes.Buffer
	for i := 0; i < len(rules); i++ {
		next := func() string {
			i++
			if i >= len(rules) {
				fmt.Fprintln(os.Stderr, "fake-harness: rule needs an argument")
				os.Exit(2)
			}
			return rules[i]
		}
		switch rules[i] {
		case "say":
			var words []string
			for i+1 < len(rules) && rules[i+1] != ";" {
				words = append(words, next())
			}
			if i+1 < len(rules) {
				i++
			}
			out.WriteString(strings.Join(words, " "))
		case "echo":
			out.Write(prompt)
		case "answer":
			var c struct {
				Kind     string `json:"kind"`
				Schedule string `json:"schedule"`
				Messages []struct {
					Text string `json:"text"`
				} `json:"messages"`
			}
			data, err := os.ReadFile(ctxFile)
			if err != nil || json.Unmarshal(data, &c) != nil {
				fmt.Fprintln(os.Stderr, "fake-harness: cannot read the context file")
				os.Exit(4)
			}
			if len(c.Messages) == 0 {
				fmt.Fprintf(&out, "%s run %s", c.Kind, c.Schedule)
			}
			for _, m := range c.Messages {
				fmt.Fprintf(&out, "answer to %s", m.Text)
			}
		case "reply":
			say := next()
			obj := map[string]any{"say": say}
			if say == "-" {
				obj["say"] = nil
			}
			if i+1 < len(rules) {
				if n, err := strconv.Atoi(rules[i+1]); err == nil {
					i++
					obj["wake"] = map[string]any{"after": n}
				}
			}
			data, _ := json.Marshal(map[string]any{"result": obj})
			out.Write(data)
		case "empty":
		case "invalid":
			out.WriteString("this is not JSON")
		case "flood":
			out.Write(bytes.Repeat([]byte("x"), 8<<20))
		case "fail":
			fmt.Fprintln(os.Stderr, "fake-harness: failing as told")
			os.Exit(3)
		case "failfirst":
			file, n := next(), next()
			limit, _ := strconv.Atoi(n)
			data, _ := os.ReadFile(file)
			count, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			count++
			os.WriteFile(file, []byte(strconv.Itoa(count)+"\n"), 0o644)
			if count <= limit {
				fmt.Fprintf(os.Stderr, "fake-harness: failing attempt %d of %d\n", count, limit)
				os.Exit(3)
			}
		case "act":
			f, err := os.OpenFile(next(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, "acted")
				f.Close()
			}
		case "crash":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		case "sleep":
			s, _ := strconv.ParseFloat(next(), 64)
			time.Sleep(time.Duration(s * float64(time.Second)))
		case "hold":
			if _, err := os.Stat("run/hold.harness"); err == nil {
				os.WriteFile(fmt.Sprintf("run/ready.harness.%d", os.Getpid()), nil, 0o644)
				for {
					if _, err := os.Stat("run/go.harness"); err == nil {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
		case "hang":
			select {}
		case "context":
			data, _ := os.ReadFile(ctxFile)
			os.WriteFile(next(), data, 0o644)
		case "stdin":
			os.WriteFile(next(), prompt, 0o644)
		default:
			fmt.Fprintf(os.Stderr, "fake-harness: unknown rule %s\n", rules[i])
			os.Exit(2)
		}
	}
	if len(rules) == 0 {
		out.Write(prompt)
	}
	os.Stdout.Write(out.Bytes())
}
