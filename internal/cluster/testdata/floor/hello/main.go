// Command hello is the floor of any Go command on the machine: it prints a
// line and exits. BenchmarkSequentialBsub runs it as it runs bsub.
package main

import "os"

func main() {
	os.Stdout.WriteString("hello\n")
}
