package config

import "testing"

func TestSettingAt(t *testing.T) {
	tests := []struct{ path, want string }{
		{"watch.interval", "watch.interval"},
		{"sensors.git.timeout", "sensors.*.timeout"},
		{"sensors.inputs.timeout", "sensors.*.timeout"},
		{"sensors.git.reconcile.lookback", "sensors.*.reconcile.lookback"},
		{"channels.send.send.max_bytes", "channels.*.send.max_bytes"},
		{"assistants.a.schedules.daily.every", "assistants.*.schedules.*.every"},
		{"assistants.a.inputs.3.every", "assistants.*.inputs.*.every"},
		{"validate.required_status.0", "validate.required_status.*"},
		{"sensors.git.command", ""},
		{"watch", ""},
	}
	for _, tt := range tests {
		got := ""
		if s := settingAt(tt.path); s != nil {
			got = s.Path
		}
		if got != tt.want {
			t.Errorf("settingAt(%q) describes %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestSettingDefaults: a declaration that sets nothing gets every default Settings
// describes, and Marshal writes none of them back.
func TestSettingDefaults(t *testing.T) {
	c, err := Parse(FileName, []byte("version: 8\nname: acme\nsensors:\n  s: {command: [s]}\nroutines:\n  r: {command: [r]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, r := c.Sensors["s"], c.Routines["r"]
	got := map[string]any{
		"sensors.*.enabled": s.Enabled, "sensors.*.timeout": int64(s.Timeout), "sensors.*.max_bytes": s.MaxBytes,
		"sensors.*.refresh": int64(s.Refresh), "sensors.*.lookback": int64(s.Lookback), "sensors.*.mode": s.Mode,
		"sensors.*.overlap": int64(s.Overlap), "sensors.*.priority": s.Priority,
		"routines.*.enabled": r.Enabled, "routines.*.timeout": int64(r.Timeout), "routines.*.max_bytes": r.MaxBytes,
		"routines.*.refresh": int64(r.Refresh), "routines.*.lookback": int64(r.Lookback), "routines.*.output": r.Output,
		"watch.interval": int64(c.Watch.Interval), "watch.poll_interval": c.Watch.PollInterval,
		"watch.notifications": c.Watch.Notifications, "watch.notification_cooldown": int64(c.Watch.NotificationCooldown),
	}
	for path, v := range got {
		if want := described(path).Default; v != want {
			t.Errorf("%s = %v, want the described default %v", path, v, want)
		}
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := header + "\nversion: 8\nname: acme\nsensors:\n  s:\n    command: [s]\nroutines:\n  r:\n    command: [r]\n"
	if string(out) != want {
		t.Errorf("Marshal wrote\n%s\nwant\n%s", out, want)
	}
}
