package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
)

// Options configure Approver. The zero value asks on /dev/tty.
type Options struct {
	// Open opens the terminal to ask on; nil: /dev/tty, the process's
	// controlling terminal (so that the question does not mix with the
	// command's output, and stdin may be a pipe).
	Open func() (io.ReadWriteCloser, error)
	// OnAsk, when set, is called with true before the question is put
	// and with false after the answer (a CLI pauses its spinner).
	OnAsk func(asking bool)
	// NoSession leaves "for this session" out of SandboxApprover's
	// question: the commands asked about are not run in a Session (the
	// CLI's one-shot runs), where it would hold for one run only.
	NoSession bool
}

// Approver returns a shellguard.Approver that puts each ask to the person
// at the terminal: the command explained (Explain), then "Run this
// command? [y]es once, [a]lways, [N]o". Always is offered when g can keep
// grants (Guard.GrantsError is nil) and the policy has a rule narrow
// enough to remember (policy.Grant); it is written for g's workspace, then
// the command runs. Anything but yes or always is no. A terminal that
// cannot be opened is an error: the command is not run.
func Approver(g *shellguard.Guard, o *Options) shellguard.Approver {
	if o == nil {
		o = &Options{}
	}
	return func(ctx context.Context, req shellguard.Request, v policy.Verdict) (bool, error) {
		tty, done, err := o.ask("ask")
		if err != nil {
			return false, err
		}
		defer done()
		Explain(tty, req.Command, v)
		var offer []string
		if g.GrantsError() == nil {
			offer = policy.Grant(req.Command, v, g.Config().Rules)
		}
		if offer != nil {
			fmt.Fprintf(tty, "[a]lways in this workspace allows exactly: %s\n", strings.Join(offer, "; "))
			fmt.Fprint(tty, "Run this command? [y]es once, [a]lways, [N]o: ")
		} else {
			fmt.Fprint(tty, "Run this command? [y/N] ")
		}
		answer, _ := bufio.NewReader(io.LimitReader(tty, 256)).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
			return true, nil
		case "a", "always":
			if offer == nil {
				return false, nil
			}
			s := g.NewSession(shellguard.SessionOptions{})
			err := s.Remember("always", req.Command, offer)
			s.Close()
			if err != nil {
				fmt.Fprintln(tty, "shellguard: not remembered (this time only):", err)
			} else {
				fmt.Fprintf(tty, "shellguard: remembered in %s\n", g.Config().GrantsFile)
			}
			return true, nil
		}
		return false, nil
	}
}

// SandboxApprover returns a function for shellguard.Config.ApproveSandbox
// (or, bound to a request, Request.ApproveSandbox) that puts each
// expansion to the person at the terminal while the command's connection
// waits (a host), or before the command runs once more (a path): the
// command, the host or path the sandbox refused (PathGrant.Question), and
// "Allow exactly that? [y]es for this run, [s]ession, [a]lways, [N]o"
// (always when g can keep grants,
// session unless o.NoSession). Anything else declines. A terminal that
// cannot be opened is an error: nothing is granted.
func SandboxApprover(g *shellguard.Guard, o *Options) func(ctx context.Context, req shellguard.Request, ask shellguard.Grant) (string, error) {
	if o == nil {
		o = &Options{}
	}
	return func(ctx context.Context, req shellguard.Request, ask shellguard.Grant) (string, error) {
		if len(ask.Hosts) == 0 && len(ask.Paths) == 0 {
			return "", nil // nothing this approver knows how to grant
		}
		tty, done, err := o.ask("ask")
		if err != nil {
			return "", err
		}
		defer done()
		if len(ask.Hosts) > 0 {
			fmt.Fprintf(tty, "\nshellguard: the command\n  %s\nconnects to %s, which the network allowlist does not list; the connection waits.\n", req.Command, strings.Join(ask.Hosts, ", "))
		}
		for _, p := range ask.Paths {
			fmt.Fprintf(tty, "\nshellguard: the sandbox refused the command\n  %s\n%s\n", req.Command, p.Question())
		}
		choices := map[string]string{"y": "once", "yes": "once"}
		prompt := "Allow exactly that? [y]es for this run"
		if !o.NoSession {
			choices["s"], choices["session"] = "session", "session"
			prompt += ", [s]ession"
		}
		if g.GrantsError() == nil {
			choices["a"], choices["always"] = "always", "always"
			prompt += ", [a]lways in this workspace"
		}
		fmt.Fprint(tty, prompt+", [N]o: ")
		answer, _ := bufio.NewReader(io.LimitReader(tty, 256)).ReadString('\n')
		return choices[strings.ToLower(strings.TrimSpace(answer))], nil
	}
}

// ask opens the terminal for one question, OnAsk around it; done closes
// it. what names the question in the error ("ask", "review").
func (o *Options) ask(what string) (tty io.ReadWriteCloser, done func(), err error) {
	if o.OnAsk != nil {
		o.OnAsk(true)
	}
	end := func() {
		if o.OnAsk != nil {
			o.OnAsk(false)
		}
	}
	open := o.Open
	if open == nil {
		open = func() (io.ReadWriteCloser, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }
	}
	if tty, err = open(); err != nil {
		end()
		return nil, nil, fmt.Errorf("the terminal could not be opened to %s: %w", what, err)
	}
	return tty, func() { tty.Close(); end() }, nil
}
