package policy

// Findings about the request rather than the command text: the library
// adds them to a verdict when a request asks to run outside the sandbox.
const (
	IDUnsandboxedDenied = "SG9001"
	IDUnsandboxedAsked  = "SG9002"
)

// UnsandboxedReason is the finding for a request to run outside the
// sandbox: an ask when the configuration allows it, a deny otherwise.
// span covers the command.
func UnsandboxedReason(allowed bool, span Span) Reason {
	if !allowed {
		return Reason{ID: IDUnsandboxedDenied, Decision: Deny, Span: span,
			Message: "running outside the sandbox is not enabled (sandbox.allow_unsandboxed is false)"}
	}
	return Reason{ID: IDUnsandboxedAsked, Decision: Ask, Span: span,
		Message: "the command asks to run outside the sandbox"}
}
