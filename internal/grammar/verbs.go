package grammar

import "strings"

// ---- verbs of tree CLIs ----

// Verb is what the words of a tree CLI's subcommand path do.
type Verb uint8

const (
	verbNone Verb = iota
	verbRead
	VerbChange
	VerbDestroy
	VerbUnknown
)

var destroyVerbs = []string{"delete", "remove", "rm", "rb", "destroy", "terminate", "purge", "drop", "prune", "uninstall",
	"wipe", "erase", "rmi", "rmdir", "down", "deregister", "unregister", "deprovision", "revoke", "disable", "truncate", "empty", "nuke", "kill", "reset", "archive",
	"decommission", "abandon", "cancel", "detach", "unlink", "cleanup", "clear", "evict", "flush", "rotate"}

var readVerbs = []string{"list", "ls", "describe", "get", "show", "view", "status", "info", "version", "help", "whoami",
	"search", "inspect", "logs", "log", "cat", "lookup", "read", "query", "check", "checks", "diff", "plan", "validate", "preview",
	"explain", "print", "tail", "watch", "wait", "head", "estimate", "test", "simulate", "verify", "browse",
	"api", "auth", "config", "doctor", "env", "completion", "docs", "whoami", "identity", "presign", "compare",
	"filter", "find", "count", "stat", "download", "export", "fetch", "pull", "clone", "checkout", "tree", "outputs",
	"output", "summary", "report", "audit", "metrics", "trace", "ping", "login", "current", "list-all", "usage", "quota"}

// TreeVerb classifies the subcommand path of a tree CLI by its words: a
// destroy verb anywhere wins, then a change, then a read; a path with
// no known verb is unknown.
func TreeVerb(words []string) Verb {
	best := verbNone
	for _, w := range words {
		head := camelHead(w)
		w = strings.ToLower(w)
		if k := strings.IndexAny(head, "-_"); k > 0 {
			head = head[:k]
		}
		if HasWord(destroyVerbs, head) || HasWord(destroyVerbs, w) {
			return VerbDestroy
		}
		switch {
		case changeVerb(head):
			best = VerbChange
		case HasWord(readVerbs, head) && best == verbNone:
			best = verbRead
		}
	}
	if best == verbNone {
		return VerbUnknown
	}
	return best
}

// camelHead returns the first word of a camelCase word, lower-cased
// (deleteBucket → delete); other words only lower-cased.
func camelHead(w string) string {
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return strings.ToLower(w[:i])
		}
	}
	return strings.ToLower(w)
}

var changeVerbs = []string{"create", "update", "set", "put", "add", "deploy", "apply", "run", "start", "restart", "scale",
	"upload", "push", "publish", "tag", "attach", "associate", "enable", "modify", "patch", "replace", "import", "copy",
	"merge", "edit", "install", "invoke", "exec", "register", "approve", "close", "reopen", "comment", "fork", "cp", "mv",
	"sync", "mb", "authorize", "grant", "allocate", "launch", "reboot", "resize", "restore", "rename", "move", "transfer",
	"change", "promote", "rollback", "write", "send", "submit", "trigger", "dispatch", "rerun", "lock", "unlock", "ssh"}

func changeVerb(w string) bool { return HasWord(changeVerbs, w) }

// HasWord reports whether w is in list.
func HasWord(list []string, w string) bool {
	for _, s := range list {
		if s == w {
			return true
		}
	}
	return false
}
