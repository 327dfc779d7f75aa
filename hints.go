package shellguard

import (
	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/policy"
)

// networkOffHint is added to SandboxWarnings when a command without the
// network failed the way programs fail to reach the network.
const networkOffHint = "the network is off; --network enables it (sandbox.network: true in the configuration)"

// netFailure matches the messages resolvers and network clients print when
// a host cannot be resolved or reached: the C library's getaddrinfo
// errors (glibc, musl, BSD), Go's resolver, curl/git/wget/ssh, Node's
// EAI_* codes, and an unreachable network.
var netFailure = lazyre.New(`(?i)temporary failure in name resolution|name or service not known|` +
	`no address associated with hostname|name does not resolve|nodename nor servname|` +
	`getaddrinfo|\beai_(?:again|noname|fail|nodata)\b|no such host|(?:could not|couldn't|unable to|failed to) resolve|` +
	`network is unreachable|\benetunreach\b`)

// hintNetwork adds networkOffHint to a failed run that had no network and
// whose output says it could not resolve or reach a host.
func hintNetwork(res *Result) {
	if res.Sandbox == nil || res.Sandbox.Network != "none" || res.ExitCode == nil || *res.ExitCode == 0 {
		return
	}
	if netFailure.Get().MatchString(res.Stderr) || netFailure.Get().MatchString(res.Stdout) {
		res.SandboxWarnings = append(res.SandboxWarnings, networkOffHint)
	}
}

// hintExitCode adds the verdict's notes on what exit code 1 means (grep:
// no matches) to a result that exited with 1, and only then: before
// anything exited, or after another code, they would be noise.
func hintExitCode(res *Result, v policy.Verdict) {
	if res.ExitCode != nil && *res.ExitCode == 1 {
		res.Warnings = append(res.Warnings, v.ExitCodeNotes...)
	}
}
