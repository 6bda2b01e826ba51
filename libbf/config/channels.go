package config

// Limits and defaults of channel capabilities.
const (
	DefaultStreamTimeout = 30 // seconds an acknowledgement pipe may stay blocked
	DefaultChannelBytes  = 64 * miB
	maxChannelBytes      = 256 * miB
	DefaultFrameBytes    = 1 * miB
	minFrameBytes        = 1 * kiB
	maxFrameBytes        = 1 * miB
)

// Channel is a named messaging endpoint with at least one capability.
type Channel struct {
	// Send delivers one message read from stdin and prints a receipt.
	Send *Capability `json:"send,omitempty"`
	// Read prints the messages of a [{{start}}, {{end}}) window.
	Read *Capability `json:"read,omitempty"`
	// Stream is a long-lived process printing one message per line.
	Stream *Capability `json:"stream,omitempty"`
}

// Capability is one operation of a channel.
type Capability struct {
	// Command is the adapter's argv; scripts live under channels/ or on PATH.
	Command Command `json:"command"`
	// Timeout in seconds (1–3600): runtime of send and read (default 300), blocked
	// acknowledgement pipe of stream (default 30).
	Timeout int `json:"timeout,omitempty"`
	// MaxBytes caps output: send and read 1 byte–256 MiB (default 64 MiB); stream per
	// frame 1 KiB–1 MiB (default 1 MiB).
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Idempotent (send only): repeating a delivery ID and payload creates no second message,
	// so failed deliveries retry by themselves.
	Idempotent bool `json:"idempotent,omitempty"`
}

// Operations of a channel, in the order bf.yaml lists them.
const (
	OpSend   = "send"
	OpRead   = "read"
	OpStream = "stream"
)

// Capability returns the capability for op (send, read or stream), or nil.
func (c *Channel) Capability(op string) *Capability {
	switch op {
	case OpSend:
		return c.Send
	case OpRead:
		return c.Read
	case OpStream:
		return c.Stream
	}
	return nil
}
