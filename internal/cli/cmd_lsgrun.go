package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

var lsgrunSpec = func() *lsfopt.Spec {
	s := lsfopt.New("h|V|i|p|P|S|v|m:|R:|f:|n:")
	s.StopAtOperand = true
	return s
}()

func init() {
	Register(&Command{Name: "lsgrun", Summary: "run a task on a group of hosts through their RES", Run: runLsgrun})
}

func lsgrunUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: lsgrun [-h] [-V] [-i] [-p] [-P] [-S] [-v] {-m "host_name ..." | -f host_file | -R "res_req" | [-R "res_req"] -n num_hosts} [command [argument ...]]`)
}

// runLsgrun runs a command on every host named (-m, -f) or placed by the
// master LIM (-R, -n), one after the other, or all at once with -p (no
// pseudo-terminal then, as LSF ignores -P with -p; each host's output is
// written a line at a time, so lines of different hosts never mix). -v
// announces each host. -i asks first whether to run the task on all the
// hosts; without a yes, it asks host by host. Without a command it
// prompts for one ("Command> "). Its status is the last failing task's,
// 255 when a host could not run it.
func runLsgrun(ctx context.Context, env *Env, args []string) int {
	res, err := lsgrunSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsgrun: %v\n", err)
		lsgrunUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lsgrunUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	var names []string
	for _, m := range res.All("m") {
		names = append(names, strings.Fields(m)...)
	}
	if f, ok := res.Last("f"); ok {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "lsgrun: %s\n", remoteMessage(err))
			return ExitUsage
		}
		names = append(names, strings.Fields(string(b))...)
	}
	req, hasR := res.Last("R")
	num := 0
	if v, ok := res.Last("n"); ok {
		if num, err = strconv.Atoi(v); err != nil || num < 1 {
			lsgrunUsage(env)
			return ExitUsage
		}
	}
	if len(names) == 0 && !hasR && num == 0 {
		lsgrunUsage(env)
		return ExitUsage
	}
	argv := res.Operands
	if len(argv) == 0 {
		fmt.Fprint(env.Stdout, "Command> ")
		line, _ := readLine(env.Stdin)
		argv = strings.Fields(line)
		if len(argv) == 0 {
			return 0
		}
	}
	var hosts []string
	if len(names) > 0 && !hasR && num == 0 {
		for _, n := range names {
			h, err := clusterHost(ctx, env, n)
			if err != nil {
				fmt.Fprintf(env.Stderr, "lsgrun: %v\n", firstLine(err))
				return ExitUsage
			}
			hosts = append(hosts, h)
		}
	} else {
		var ok bool
		if hosts, ok = placeHosts(ctx, env, "lsgrun", names, req, num); !ok {
			return ExitUsage
		}
	}
	if res.Has("i") {
		if hosts = confirmHosts(env, hosts); len(hosts) == 0 {
			return 0
		}
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsgrun: %v\n", err)
		return ExitUsage
	}
	cmdline := strings.Join(argv, " ")
	status := 0
	if !res.Has("p") {
		pty := res.Has("P") || res.Has("S")
		for _, h := range hosts {
			if res.Has("v") {
				fmt.Fprintf(env.Stdout, "<<Execute %s on remote host %s>>\n", cmdline, h)
			}
			code, err := runTask(ctx, env, cc, h, argv, taskIO{stdout: env.Stdout, stderr: env.Stderr, pty: pty, shellMode: res.Has("S"), forwardSignals: true})
			if err != nil {
				fmt.Fprintf(env.Stderr, "lsgrun: %s: %s\n", h, remoteMessage(err))
				code = ExitUsage
			}
			if code != 0 {
				status = code
			}
		}
		return status
	}
	var mu sync.Mutex // one writer at a time on the shared output
	var wg sync.WaitGroup
	codes := make([]int, len(hosts))
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := &lineWriter{mu: &mu, w: env.Stdout}
			errw := &lineWriter{mu: &mu, w: env.Stderr}
			if res.Has("v") {
				fmt.Fprintf(out, "<<Execute %s on remote host %s>>\n", cmdline, h)
			}
			code, err := runTask(ctx, env, cc, h, argv, taskIO{stdout: out, stderr: errw})
			out.flush()
			errw.flush()
			if err != nil {
				mu.Lock()
				fmt.Fprintf(env.Stderr, "lsgrun: %s: %s\n", h, remoteMessage(err))
				mu.Unlock()
				code = ExitUsage
			}
			codes[i] = code
		}()
	}
	wg.Wait()
	for _, c := range codes {
		if c != 0 {
			status = c
		}
	}
	return status
}

// lineWriter writes whole lines to w under mu, holding a partial line
// until it ends or flush.
type lineWriter struct {
	mu  *sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		l.mu.Lock()
		_, err := l.w.Write(l.buf[:i+1])
		l.mu.Unlock()
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
		if err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (l *lineWriter) flush() {
	if len(l.buf) > 0 {
		l.mu.Lock()
		l.w.Write(l.buf)
		l.mu.Unlock()
		l.buf = nil
	}
}

// confirmHosts is lsgrun -i's questions: all the hosts, or those answered
// yes one by one.
func confirmHosts(env *Env, hosts []string) []string {
	if askYes(env, "Do you really want to execute the task on all hosts? [y/n] ") {
		return hosts
	}
	var out []string
	for _, h := range hosts {
		if askYes(env, fmt.Sprintf("Execute the task on host <%s>? [y/n] ", h)) {
			out = append(out, h)
		}
	}
	return out
}

// askYes prints question and reads one line of the command's input: yes
// when it starts with y or Y.
func askYes(env *Env, question string) bool {
	fmt.Fprint(env.Stdout, question)
	line, _ := readLine(env.Stdin)
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
}

// readLine reads one line from r a byte at a time: nothing past the line
// is consumed, so the next question (or the task) reads the next line.
func readLine(r io.Reader) (string, error) {
	var b []byte
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return string(b), nil
			}
			b = append(b, c[0])
		}
		if err != nil {
			return string(b), err
		}
	}
}
