package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// hugeMode is fakeport huge: a port that sends 1 MiB in every string and
// numeric field it can, each string ending in a forged cut mark
// (" ... (000…01 bytes cut)") placed where limcheck's own would be, so
// that only a cut mark limcheck trusted by its suffix would keep it whole.
// Its hello's name and version are forged so (half a MiB each: a line
// holds 1 MiB, PROTO-1). It answers open and close with {} and each op,
// in turn, with a 1 MiB verdict, error or response (the trace goes on), a
// 1 MiB integer as a decimal string or a JSON number, a 1 MiB field name,
// a 1 MiB number as a verdict (each a result that does not decode), a 1
// MiB fault or skip message; and writes 64 KiB on stderr every op. It
// claims every component, so every case fails.
func hugeMode() {
	forged := func(keep, size int) string { // size bytes: keep of them, then a cut mark of zeros and 1
		return strings.Repeat("x", keep) + " ... (" + strings.Repeat("0", size-keep-len(" ... (1 bytes cut)")) + "1 bytes cut)"
	}
	const mib = 1<<20 - 200 // a field's size: the line's other bytes fit in 1 MiB
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	str1k := quote(forged(1000, mib)) // a result string: the mark before 1 KiB (VEC-1)
	str4k := quote(forged(4000, mib)) // a fault or skip message: the mark before 4 KiB
	digits := "1" + strings.Repeat("0", mib-1)
	replies := []string{
		`"result":{"verdict":` + str1k + `}`,
		`"result":{"error":` + str1k + `}`,
		`"result":{"response":` + str1k + `}`,
		`"result":{"retry":"` + digits + `"}`,
		`"result":{"retry":` + digits + `}`,
		`"result":{"` + strings.Repeat("k", mib) + `":"1"}`,
		`"result":{"verdict":` + digits + `}`,
		`"fault":` + str4k,
		`"skipped":` + str4k,
	}
	half := forged(4000, 1<<19-1000)
	hello, _ := json.Marshal(map[string]any{"protocol": "limcheck-port/3", "name": half, "version": half,
		"components": []string{"lim", "gate", "throttle", "throttle_faults"}})
	out := bufio.NewWriterSize(os.Stdout, 2<<20)
	fmt.Fprintf(out, "%s\n", hello)
	out.Flush() //nolint:errcheck // limcheck reads it or is gone
	noise := strings.Repeat("huge port stderr, a line of noise ..........................\n", 1<<10)
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for n := 0; ; {
		line, err := in.ReadSlice('\n')
		if err != nil {
			os.Exit(0) // limcheck closed stdin: the run is over
		}
		var req struct {
			Seq int64  `json:"seq"`
			Op  string `json:"op"`
		}
		if json.Unmarshal(line, &req) != nil {
			fail("fakeport huge: a request that is not JSON: " + string(line))
		}
		if req.Op == "open" || req.Op == "close" {
			fmt.Fprintf(out, `{"seq":%d,"result":{}}`+"\n", req.Seq)
		} else {
			os.Stderr.WriteString(noise) //nolint:errcheck // best effort
			fmt.Fprintf(out, `{"seq":%d,%s}`+"\n", req.Seq, replies[n%len(replies)])
			n++
		}
		if in.Buffered() == 0 {
			out.Flush() //nolint:errcheck // limcheck reads it or is gone
		}
	}
}
