package brain

import "testing"

func TestEnvOrSystem(t *testing.T) {
	own := Env{Home: "/home/test"}
	if got := EnvOrSystem(&own); got.Home != "/home/test" {
		t.Errorf("EnvOrSystem(&own).Home = %q", got.Home)
	}
	if got := EnvOrSystem(nil); got.Home != System().Home || got.Getenv == nil {
		t.Errorf("EnvOrSystem(nil) = %+v, want the system's", got)
	}
}
