package shellguard

// The audit trail, written ahead: a "started" line before a command
// starts and an "ended" line after it ends (only "ended" for a call that
// never started). A log that cannot take the "started" line stops the
// command, unless Config.AuditFailOpen says to run it unlogged.

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/shellguard/shellguard/audit"
)

// ErrAuditUnavailable is matched (errors.Is) by the error of a command
// that was not run because the audit log could not record its start.
var ErrAuditUnavailable = errors.New("shellguard: audit log unavailable")

func (g *Guard) openAudit() error {
	if g.cfg.AuditPath == "" {
		return nil
	}
	if err := checkAuditPath(g.cfg); err != nil {
		return err
	}
	l, err := audit.Open(g.cfg.AuditPath, audit.Options{Redactor: g.redactor(), Key: g.cfg.AuditKey})
	if err != nil {
		return fmt.Errorf("shellguard: audit log: %w", err)
	}
	g.audit = l
	return nil
}

// checkAuditPath refuses a log (or its checkpoint) where commands may
// write: the workspace, the allowed roots, the sandbox's writable roots.
func checkAuditPath(cfg Config) error {
	log := realPath(cfg.AuditPath)
	roots := append([]string{cfg.Workspace}, cfg.Rules.AllowedRoots...)
	if cfg.Sandbox != nil {
		roots = append(roots, cfg.Sandbox.WritableRoots...)
		if cfg.Sandbox.CacheDir != "" {
			roots = append(roots, cfg.Sandbox.CacheDir)
		}
	}
	for _, r := range roots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(cfg.Workspace, r)
		}
		root := realPath(r)
		if rel, err := filepath.Rel(root, log); err == nil && rel != ".." && !filepath.IsAbs(rel) && !startsDotDot(rel) {
			return fmt.Errorf("shellguard: audit log %s lies inside %s, which commands may write: put it outside the workspace and every writable root", cfg.AuditPath, r)
		}
	}
	return nil
}

func startsDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}

// realPath is p made absolute with the symbolic links of its longest
// existing prefix resolved.
func realPath(p string) string {
	p, _ = filepath.Abs(p)
	rest := ""
	for dir := p; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func (g *Guard) closeAudit() error {
	g.auditEnds.Wait() // the ends of tasks still being written
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	if g.audit == nil {
		return nil
	}
	err := g.audit.Close()
	g.audit = nil
	return err
}

// event is the audit line of req as res has it.
func (g *Guard) event(req Request, a admission, res *Result) audit.Event {
	ev := audit.Event{
		Time:         time.Now(),
		Session:      req.Session,
		Command:      req.Command,
		Cwd:          res.Cwd,
		Decision:     a.verdict.Decision,
		Reasons:      a.verdict.Reasons,
		Approved:     a.approved,
		Unsandboxed:  res.Unsandboxed,
		DurationMS:   int64(res.Duration * 1000),
		TimedOut:     res.TimedOut,
		BytesDropped: res.StdoutDroppedBytes + res.StderrDroppedBytes,
		Redactions:   res.Redactions,
		ExitCode:     res.ExitCode,
		Error:        res.Error,
	}
	if res.Task != nil {
		ev.TaskID = res.Task.ID
	}
	ev.SandboxMode = "off"
	if g.cfg.Sandbox != nil && !res.Unsandboxed {
		ev.SandboxMode = g.cfg.Sandbox.Mode.String()
	}
	if res.Sandbox != nil {
		ev.SandboxApplied = res.Sandbox.Names()
	}
	if g.cfg.Sandbox != nil && g.cfg.Sandbox.Proxy != nil && !res.Unsandboxed {
		g.grantMu.RLock()
		ev.NetGranted = slices.Concat(g.hosts, req.hosts)
		g.grantMu.RUnlock()
	}
	if res.Grant != nil && len(res.Grant.Hosts) > 0 {
		ev.NetGrantScope = res.Grant.Scope
	}
	if g.cfg.Sandbox != nil && !res.Unsandboxed {
		g.grantMu.RLock()
		for _, pg := range slices.Concat(g.paths, req.paths) {
			if s := pg.text(); !slices.Contains(ev.FSGranted, s) {
				ev.FSGranted = append(ev.FSGranted, s)
			}
		}
		g.grantMu.RUnlock()
	}
	if res.Grant != nil && len(res.Grant.Paths) > 0 {
		ev.FSGrantScope = res.Grant.Scope
	}
	return ev
}

// append writes ev; ok is false when there is no audit log.
func (g *Guard) appendAudit(ev audit.Event) (seq int64, ok bool, err error) {
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	if g.audit == nil {
		return 0, false, nil
	}
	seq, _, err = g.audit.Append(ev)
	return seq, true, err
}

// auditStart writes the "started" line of an admitted command about to
// start and returns its seq. When it cannot, the command must not start
// (the error), unless Config.AuditFailOpen: then res warns and it runs.
func (g *Guard) auditStart(req Request, a admission, res *Result) (int64, error) {
	ev := g.event(req, a, res)
	ev.Phase = audit.PhaseStarted
	seq, ok, err := g.appendAudit(ev)
	switch {
	case !ok || err == nil:
		return seq, nil
	case g.cfg.AuditFailOpen:
		res.Warnings = append(res.Warnings, "audit log unavailable, the command runs unlogged (audit.fail_open): "+err.Error())
		return 0, nil
	}
	return 0, fmt.Errorf("%w, so the command was not run (audit.fail_open runs commands unlogged): %w", ErrAuditUnavailable, err)
}

// record sets res.Error from runErr and writes the "ended" line of the
// call (start is the seq of its "started" line, 0 if it never started). A
// failure to write it cannot undo the command: res warns of it.
func (g *Guard) record(req Request, a admission, res *Result, runErr error, start int64) {
	if runErr != nil && res.Error == "" {
		res.Error = g.message(runErr.Error())
	}
	ev := g.event(req, a, res)
	ev.Phase, ev.StartSeq = audit.PhaseEnded, start
	seq, ok, err := g.appendAudit(ev)
	switch {
	case err != nil:
		res.Warnings = append(res.Warnings, "audit log unavailable, the end of this command was not logged: "+err.Error())
	case ok:
		res.AuditSeq = seq
	}
}

// recordWhenDone writes the "ended" line of a task once done is closed,
// from a goroutine Close waits for.
func (g *Guard) recordWhenDone(done <-chan struct{}, end func() (Request, admission, Result), start int64) {
	g.auditMu.Lock()
	if g.audit == nil {
		g.auditMu.Unlock()
		return
	}
	g.auditEnds.Add(1)
	g.auditMu.Unlock()
	go func() {
		defer g.auditEnds.Done()
		<-done
		req, a, res := end()
		g.record(req, a, &res, nil, start)
	}()
}
