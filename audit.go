package shellguard

// The audit trail: one hash-chained line per call, whatever its outcome.

import (
	"fmt"
	"time"

	"github.com/shellguard/shellguard/audit"
)

func (g *Guard) openAudit() error {
	if g.cfg.AuditPath == "" {
		return nil
	}
	l, err := audit.Open(g.cfg.AuditPath, audit.Options{Redactor: g.redactor(), Key: g.cfg.AuditKey})
	if err != nil {
		return fmt.Errorf("shellguard: audit log: %w", err)
	}
	g.audit = l
	return nil
}

func (g *Guard) closeAudit() error {
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	if g.audit == nil {
		return nil
	}
	err := g.audit.Close()
	g.audit = nil
	return err
}

// record sets res.Error from runErr and appends one audit event; it never
// fails the call.
func (g *Guard) record(req Request, a admission, res *Result, runErr error) {
	if runErr != nil && res.Error == "" {
		res.Error = runErr.Error()
	}
	if g.audit == nil {
		return
	}
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
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	if g.audit != nil {
		g.audit.Append(ev)
	}
}
