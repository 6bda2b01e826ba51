package brain_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/brain"
)

// A brain is a folder with a bf.yaml; Open reads it.
func ExampleOpen() {
	root, err := os.MkdirTemp("", "brain-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	if err := os.WriteFile(filepath.Join(root, "bf.yaml"), []byte("version: 8\nname: acme\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	b, err := brain.Open(root)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Name, b.Config.Watch.Interval)
	// Output: acme 60
}

// Select picks the brains a command works on, as --brain PATH does here; the brains: that
// bf.yaml references come with it.
func ExampleSelect() {
	home, err := os.MkdirTemp("", "brain-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)
	for name, config := range map[string]string{
		"work": "version: 8\nname: work\nbrains:\n  team:\n    path: ../team\n",
		"team": "version: 8\nname: team\n",
	} {
		if err := os.MkdirAll(filepath.Join(home, name), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, name, "bf.yaml"), []byte(config), 0o644); err != nil {
			log.Fatal(err)
		}
	}

	sel, err := brain.Select(brain.Request{Purpose: brain.Retrieval, Brain: filepath.Join(home, "work"), BrainGiven: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range sel.Brains {
		fmt.Println(b.Name)
	}
	// Output:
	// work
	// team
}
