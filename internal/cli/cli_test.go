package cli

import (
	"bytes"
	"flag"
	"testing"
	"time"
)

func TestPrintFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("addr", "127.0.0.1:8080", "address to listen on")
	fs.Bool("demo", false, "seed a demo")
	fs.Float64("rate", 0, "requests per `N` seconds")
	fs.Duration("wait", 30*time.Second, "how long")
	var b bytes.Buffer
	PrintFlags(&b, fs)
	want := "  --addr string\n      address to listen on (default \"127.0.0.1:8080\")\n" +
		"  --demo\n      seed a demo\n" +
		"  --rate N\n      requests per N seconds\n" +
		"  --wait duration\n      how long (default \"30s\")\n"
	if b.String() != want {
		t.Fatalf("PrintFlags wrote\n%s\nwant\n%s", b.String(), want)
	}
}
