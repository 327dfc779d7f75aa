package shellguard

// The run: building the runner's options (limits, cwd, sandbox launcher)
// and running one command to its end.

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/internal/safe"
	"github.com/shellguard/shellguard/internal/steptime"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// Request is one command to run.
type Request struct {
	Command string
	// Cwd is the working directory: absolute, or relative to the
	// workspace. Empty: the workspace.
	Cwd string
	// Timeout: 0 means the configured default; otherwise it must be above
	// 0 and at most Config.MaxTimeout, or the request is refused with a
	// *LimitError (see CheckTimeout).
	Timeout time.Duration
	// MaxOutput: 0 means Config.MaxOutput; otherwise the per-stream
	// capture size, from 1 to Config.MaxTotalOutput (see CheckMaxOutput).
	MaxOutput int

	// Stdout and Stderr, when set, receive output live as it arrives
	// (redacted, like the Result).
	Stdout io.Writer
	Stderr io.Writer
	// MergeStderr gives the command one pipe for stdout and stderr, so
	// that they keep the order it wrote them in (for a caller showing
	// both on one terminal): all output is then Stdout, and Stderr is
	// empty.
	MergeStderr bool

	// Approve, when set, decides this request if its verdict is ask
	// (instead of Config.Approver).
	Approve func(ctx context.Context, v policy.Verdict) (bool, error)
	// ApproveSandbox, when set, decides this request's sandbox expansion
	// (instead of Config.ApproveSandbox, which see).
	ApproveSandbox func(ctx context.Context, ask Grant) (scope string, err error)
	// Review makes this a review run (sandbox.Spec.Review): its writes
	// wait in a copy-on-write layer of the workspace and only those the
	// reviewer (ReviewChanges, else Config.ReviewChanges) picks land.
	// Without a reviewer, with the sandbox off or unsandboxed, the
	// request is refused with a *LimitError before anything runs.
	Review bool
	// ReviewChanges, when set, reviews this request's changes (instead
	// of Config.ReviewChanges, which see).
	ReviewChanges func(ctx context.Context, changes []sandbox.Change) (apply []string, err error)
	// DisableSandbox asks to run outside the sandbox; honoured only with
	// Config.AllowUnsandboxed, and then always as an ask.
	DisableSandbox bool
	// Network narrows the sandbox's network for this request: "off" or
	// "allowlist" under a wider configured mode ("" or the configured
	// mode: unchanged). A wider mode is refused with a *LimitError: only
	// the configuration widens the network.
	Network string
	// Session names the caller's session in the audit log.
	Session string

	grants []string // the session's remembered approvals (Session.withGrants)
	// hosts are network destinations allowed beyond the allowlist: the
	// session's grants.
	hosts []string
	// sess is the Session running it (Session.withGrants), for grants
	// "for this session" given while it runs.
	sess *Session
	// paths are file-system grants beyond the sandbox: the session's, and
	// on a run made again, the ones just given (fsgrant.go).
	paths []PathGrant
	// again is set on the one run made again after path grants: what was
	// granted for it, and whether the first run's ask was approved.
	again *rerun
}

// Run runs req and waits for it. Cancelling ctx stops the command and
// returns its partial result together with ctx's error. When Run returns,
// every process of the command has ended; the sandbox helper that ran it
// may still be exiting (its namespaces being torn down) and is reaped in
// the background.
//
// A denied command, or an ask that no approver accepted, is not started:
// the Result carries the decision and reasons and the error is a
// *DeniedError (errors.Is(err, ErrDenied)).
func (g *Guard) Run(ctx context.Context, req Request) (Result, error) {
	res, tag, err := g.run(ctx, req)
	if again, ok := g.askPaths(ctx, req, &res, tag, err); ok {
		res, _, err = g.run(ctx, again)
	}
	return res, err
}

// run is Run, once.
func (g *Guard) run(ctx context.Context, req Request) (res Result, tag *runTag, err error) {
	defer safe.Recover("Guard.Run", nil, func(e error) { err, res.Error = e, e.Error() })
	safe.Point("Guard.Run")
	steptime.Mark("run.begin")
	opts, a, res, err := g.prepare(ctx, req)
	steptime.Mark("run.prepare")
	var started int64
	defer func() { g.record(req, a, &res, err, started); steptime.Mark("run.record") }()
	if err != nil {
		return res, nil, err
	}
	if started, err = g.auditStart(req, a, &res); err != nil {
		return res, nil, err
	}
	rr, err := runner.Run(ctx, opts)
	if rr.Pid == 0 { // nothing was started
		return res, nil, err
	}
	steptime.Mark("run.ran")
	tag = opts.Tag.(*runTag)
	g.fill(&res, rr, tag)
	steptime.Mark("run.fill")
	return res, tag, err
}

// runTag travels with a started command (runner.Options.Tag): what
// admission decided and how many secrets its output has had redacted.
type runTag struct {
	admission
	redactions   atomic.Int64
	backgrounded atomic.Bool // moved to the background by Session.Run
	live         *liveGrants // hosts allowed while it ran (expand.go)
	// spec and dir are the sandbox and cwd it ran with (nil: none), by
	// which the paths it was refused are judged (fsrefused.go); pathAsks
	// are the grants that would lift them.
	spec     *sandbox.Spec
	dir      string
	pathAsks []PathGrant
}

// prepare admits req and builds its runner options. The returned Result
// carries the decision and reasons whether or not the request may run.
func (g *Guard) prepare(ctx context.Context, req Request) (runner.Options, admission, Result, error) {
	res := Result{Command: g.redactor().String(req.Command), Cwd: g.resolveCwd(req.Cwd)}
	a, err := g.admit(ctx, req)
	res.admitted(a)
	if req.again != nil {
		gr := req.again.grant
		res.Grant = &Grant{Paths: slices.Clone(gr.Paths), Scope: gr.Scope}
		res.Warnings = append(res.Warnings, g.message(req.again.warning))
	}
	if err != nil {
		return runner.Options{}, a, res, err
	}
	opts, err := g.options(ctx, req)
	if err != nil {
		return opts, a, res, err
	}
	if a.unsandboxed {
		if l, ok := opts.Launcher.(sandboxLauncher); ok && l.spec.Review {
			err := &LimitError{Field: "review", Reason: "the command runs outside the sandbox, where nothing can hold its changes for a review"}
			return runner.Options{}, a, res, err
		}
		if m, _ := sandbox.ParseNetMode(req.Network); req.Network != "" && m != sandbox.NetOn {
			err := &LimitError{Field: "network", Reason: "the command runs outside the sandbox, with the host's network: " + req.Network + " cannot be applied"}
			return runner.Options{}, a, res, err
		}
		opts.Launcher = nil
	}
	if l, ok := opts.Launcher.(sandboxLauncher); ok && !l.spec.Review && l.spec.Mode != sandbox.Off && a.approved != nil && *a.approved {
		// An approved ask is reviewed before its changes land when
		// someone can review them and the sandbox can hold them.
		if rv, err := g.reviewer(ctx, req); err == nil && g.canReview() == nil {
			l.spec.Review, l.review = true, rv
			opts.Launcher = l
		}
	}
	tag := &runTag{admission: a, dir: opts.Dir}
	if l, ok := opts.Launcher.(sandboxLauncher); ok {
		tag.live = l.live
		tag.spec = &l.spec
	}
	opts.Filter = g.filter(&tag.redactions)
	opts.Tag = tag
	return opts, a, res, nil
}

func (g *Guard) options(ctx context.Context, req Request) (runner.Options, error) {
	// One rule for every face: out of range is refused, never clamped.
	timeout := req.Timeout
	if timeout == 0 {
		timeout = g.cfg.Timeout
	} else if err := CheckTimeout(timeout, g.cfg.MaxTimeout); err != nil {
		return runner.Options{}, err
	}
	maxOut := g.cfg.MaxOutput
	if req.MaxOutput != 0 {
		if err := CheckMaxOutput(req.MaxOutput, g.cfg.MaxTotalOutput); err != nil {
			return runner.Options{}, err
		}
		maxOut = req.MaxOutput
	}
	dir, err := ResolveCwd(req.Cwd, g.cfg.Workspace, g.cfg.Rules.AllowedRoots)
	if err != nil {
		return runner.Options{}, err
	}
	var launcher runner.Launcher
	if g.cfg.Sandbox != nil {
		spec := *g.cfg.Sandbox
		if req.Network != "" {
			if spec, err = spec.WithNetMode(req.Network); err != nil {
				return runner.Options{}, &LimitError{Field: "network", Reason: err.Error()}
			}
		}
		g.grantMu.RLock()
		spec.NetGrants = slices.Concat(g.hosts, req.hosts)
		paths := slices.Concat(g.paths, req.paths)
		g.grantMu.RUnlock()
		g.withPaths(&spec, paths)
		l := sandboxLauncher{spec: spec, live: &liveGrants{}}
		l.netAsk = g.liveAsk(ctx, req, l.live)
		if req.Review || spec.Review {
			if l.review, err = g.reviewer(ctx, req); err != nil {
				return runner.Options{}, err
			}
			if spec.Mode == sandbox.Off {
				return runner.Options{}, &LimitError{Field: "review", Reason: "a review needs the sandbox's copy-on-write workspace, and the sandbox is off"}
			}
			l.spec.Review = true
		}
		launcher = l
	} else if req.Review {
		return runner.Options{}, &LimitError{Field: "review", Reason: "a review needs the sandbox's copy-on-write workspace, and the sandbox is off"}
	} else if m, _ := sandbox.ParseNetMode(req.Network); req.Network != "" && m != sandbox.NetOn {
		return runner.Options{}, &LimitError{Field: "network", Reason: "the sandbox is off here, so the network is the host's: " + req.Network + " cannot be applied"}
	}
	return runner.Options{
		Launcher:  launcher,
		Script:    req.Command,
		Dir:       dir,
		Env:       g.env,
		Timeout:   timeout,
		MaxOutput: maxOut,
		MaxTotal:  g.cfg.MaxTotalOutput,
		Stdout:    req.Stdout,
		Stderr:    req.Stderr,

		MergeStderr: req.MergeStderr,
	}, nil
}

func (g *Guard) resolveCwd(cwd string) string {
	if cwd == "" {
		return g.cfg.Workspace
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(g.cfg.Workspace, cwd)
	}
	return filepath.Clean(cwd)
}

// sandboxLauncher runs commands through the sandbox helper: a warm one
// from pool when the session has one ready, else one started cold.
type sandboxLauncher struct {
	spec sandbox.Spec
	pool *sandbox.Pool
	// review is a review run's reviewer (spec.Review).
	review func([]sandbox.Change) ([]string, error)
	// netAsk asks about a host the proxy refuses while the command runs,
	// recording what was allowed in live (expand.go).
	netAsk func(context.Context, string) bool
	live   *liveGrants
}

func (l sandboxLauncher) Command(script string, env []string, dir string) (runner.Launch, error) {
	cmd, h, err := l.pool.Command(context.Background(), l.spec, script, env, dir)
	if err != nil {
		return runner.Launch{}, err
	}
	if l.review != nil {
		h.OnReview(l.review)
	}
	if l.netAsk != nil && l.spec.Proxy != nil {
		h.OnNetAsk(l.netAsk)
	}
	launch := runner.Launch{
		Cmd:         cmd,
		Started:     h.Started,
		Report:      func() (any, error) { return h.Applied() },
		Close:       func() { h.Close() },
		StartFailed: h.StartFailed,
		Contained:   h.Contained,
		Ended:       h.Ended,
		Reaped:      h.Reaped,
		Tree:        h.Tree,
	}
	if h.Warm() {
		// A warm helper is running already: one that does not get its
		// command (it died, or the run failed before handing it over)
		// is ended and waited for here; the runner waits for the others.
		var sent bool
		var abandon sync.Once
		end := func() {
			abandon.Do(func() {
				cmd.Process.Kill()
				cmd.Wait()
				runner.Forget(cmd.Process.Pid)
			})
		}
		launch.Send = func(stdin, stdout, stderr *os.File) error {
			err := h.Send(stdin, stdout, stderr)
			sent = err == nil
			return err
		}
		// The runner then asks again: a cold helper or another warm one.
		launch.StartFailed = func(error) bool {
			end()
			h.Close()
			return true
		}
		launch.Close = func() {
			if !sent {
				end()
			}
			h.Close()
		}
	}
	return launch, nil
}

// ProbeSandbox runs `exit 0` the way the Guard runs commands and returns
// what the sandbox enforced (sandbox.Describe): its layers, writable
// roots and network. Nil without a sandbox or with the sandbox off.
func (g *Guard) ProbeSandbox() (*sandbox.Applied, error) {
	if g.cfg.Sandbox == nil || g.cfg.Sandbox.Mode == sandbox.Off {
		return nil, nil
	}
	a, err := sandbox.Describe(*g.cfg.Sandbox, g.env)
	return &a, err
}
