// Command submit is the floor of any Go bsub against mbatchd: it reads
// lsf.conf and LSF's hosts file, connects to the first master candidate and
// submits one held job, with none of bsub's options, checks or messages, and
// none of the other commands and daemons that share bsub's binary.
// BenchmarkSequentialBsub runs it as it runs bsub.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/hostsfile"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

func main() {
	if err := submit(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "submit:", err)
		os.Exit(1)
	}
}

func submit(ctx context.Context) error {
	conf, _, err := config.LoadConf(config.Options{EnvDir: os.Getenv("LSF_ENVDIR"), Getenv: os.Getenv})
	if err != nil {
		return err
	}
	path := filepath.Join(conf.ConfDir(), "hosts")
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	hosts, _ := hostsfile.Parse(path, src)
	masters := conf.MasterList()
	if len(masters) == 0 {
		return fmt.Errorf("no LSF_MASTER_LIST")
	}
	addr, err := (&config.Resolver{Hosts: hosts}).Resolve(ctx, masters[0])
	if err != nil {
		return err
	}
	host := os.Getenv("BASALT_HOST")
	// The connection authenticates as bsub's does (LSF_AUTH: a credential
	// under eauth).
	hello, err := authsetup.Client(conf, os.Getenv("LSF_ENVDIR"), host, auth.KindUser).Hello(ctx, auth.KindMbatchd, masters[0])
	if err != nil {
		return err
	}
	cl, err := rpc.Dial(ctx, net.JoinHostPort(addr.String(), strconv.Itoa(conf.MBDPort())), hello)
	if err != nil {
		return err
	}
	defer cl.Close()
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	var reply api.SubmitReply
	req := &api.SubmitRequest{Jobs: []*api.JobSpec{{Command: "true", FromHost: host, SubCwd: cwd, OutFile: "/dev/null", Hold: true}}}
	if err := cl.Call(ctx, api.MBatchdSubmit, req, &reply); err != nil {
		return err
	}
	fmt.Printf("Job <%d> is submitted.\n", reply.Results[0].JobID)
	return nil
}
