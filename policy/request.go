package policy

// UnsandboxedReason is the finding for a request to run outside the
// sandbox, built from its catalog row: UnsandboxedAsk when the
// configuration allows it, UnsandboxedOff (deny) otherwise. span covers
// the command.
func UnsandboxedReason(allowed bool, span Span) Reason {
	row, msg := UnsandboxedOff, "running outside the sandbox is not enabled (sandbox.allow_unsandboxed is false)"
	if allowed {
		row, msg = UnsandboxedAsk, "the command asks to run outside the sandbox"
	}
	return Reason{ID: row.ID, Decision: row.Decision, Floor: row.Floor(), Message: msg, Span: span}
}
