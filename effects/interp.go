package effects

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

// interpreter reads the code of python -c, node -e, perl -e, ruby -e,
// pwsh -c …: list-form argv (subprocess.run(['rm','-rf',…]),
// execFileSync('rm', [...]), system('rm', …)) becomes the effects of that
// command; delete calls (shutil.rmtree, remove_tree, fs.promises.rm,
// Remove-Item …) become deletes.
func (x *extractor) interpreter(i int, c *analyze.Command, p *parsed, with func(Effect) Effect) {
	g := p.chain[0]
	if !g.Interp {
		return
	}
	for _, o := range p.opts {
		if r, ok := p.g.optRole(o.name); ok && r == RoleCode && o.hasVal {
			x.interpCode(i, c, o.val, with)
		}
	}
}

// delete calls of interpreter libraries and whether they are recursive.
var deleteCalls = []struct {
	name      string
	recursive bool
}{
	{"shutil.rmtree", true}, {"rmtree", true}, {"remove_tree", true}, {"rm_rf", true}, {"rm_r", true},
	{"FileUtils.rm", false}, {"fs.promises.rm", true}, {"fsPromises.rm", true}, {"fs.rmSync", true}, {"fs.rm", true},
	{"rmSync", true}, {"fs.rmdirSync", true}, {"Remove-Item", true}, {"rimraf", true}, {"os.RemoveAll", true},
	{"os.remove", false}, {"os.unlink", false}, {"os.rmdir", false}, {"unlinkSync", false}, {"fs.unlink", false},
	{"File.delete", false}, {"unlink", false}, {"rmdir", false}, {"Path.unlink", false}, {".unlink(", false},
	{".rmdir(", false}, {".promises.rm", true}, {".rmSync", true}, {".rm(", true}, {"del ", false}, {"ri ", true},
}

func (x *extractor) interpCode(i int, c *analyze.Command, a analyze.Arg, with func(Effect) Effect) {
	code := a.Value
	if len(code) > 8192 {
		code = code[:8192]
	}
	// list-form argv: ['rm', '-rf', '/x'] or ("rm", "-rf", …)
	for k := 0; k < len(code); k++ {
		if code[k] != '[' && code[k] != '(' {
			continue
		}
		words, end, ok := stringList(code[k+1:], closer(code[k]))
		if !ok || len(words) < 2 {
			continue
		}
		name := words[0]
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			name = name[j+1:]
		}
		g := Lookup(name)
		if g == nil || g.Interp && name != "rm" {
			k += end
			continue
		}
		args := make([]analyze.Arg, len(words))
		for j, w := range words {
			args[j] = analyze.Arg{Value: w, Span: a.Span}
		}
		inner := &analyze.Command{Argv: words, Args: args, Cwd: c.Cwd, Span: a.Span}
		p := parse(g, args[1:])
		before := len(x.out)
		x.apply(i, inner, p)
		for j := before; j < len(x.out); j++ {
			x.out[j].Via = c.Name() + " code runs " + strings.Join(words, " ")
			if len(x.out[j].Via) > 80 {
				x.out[j].Via = x.out[j].Via[:77] + "…"
			}
		}
		k += end
	}
	// delete calls with a literal or computed path
	for _, d := range deleteCalls {
		off := 0
		for n := 0; n < 8; n++ {
			k := strings.Index(code[off:], d.name)
			if k < 0 {
				break
			}
			k += off
			off = k + len(d.name)
			if k > 0 && isIdent(code[k-1]) && d.name[0] != '.' {
				continue
			}
			rest := code[off:]
			if off < len(code) && isIdent(code[off]) && d.name[len(d.name)-1] != ' ' {
				continue
			}
			lit, dyn, ok := firstString(rest)
			if !ok {
				continue
			}
			via := c.Name() + " code calls " + strings.TrimSuffix(strings.TrimSpace(d.name), "(")
			if dyn {
				x.emit(with(Effect{Kind: Delete, Path: Path{Raw: lit, Origin: OriginUnknown}, Recursive: d.recursive, Via: via, Span: a.Span, Dynamic: true}))
				continue
			}
			pa := x.pathOf(analyze.Arg{Value: lit, Span: a.Span}, c.Cwd)
			x.emit(with(Effect{Kind: Delete, Path: pa, Recursive: d.recursive, Via: via, Span: a.Span}))
		}
	}
}

func closer(b byte) byte {
	if b == '[' {
		return ']'
	}
	return ')'
}

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// stringList parses "'a', "b", 'c']" up to close: a list of string
// literals only. end is the offset after close.
func stringList(s string, close byte) (words []string, end int, ok bool) {
	k := 0
	for {
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n') {
			k++
		}
		if k >= len(s) {
			return nil, k, false
		}
		if s[k] == close && len(words) > 0 {
			return words, k + 1, true
		}
		q := s[k]
		if q != '\'' && q != '"' && q != '`' {
			return nil, k, false
		}
		j := strings.IndexByte(s[k+1:], q)
		if j < 0 {
			return nil, k, false
		}
		words = append(words, s[k+1:k+1+j])
		k += j + 2
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k < len(s) && s[k] == ',' {
			k++
			continue
		}
		if k < len(s) && s[k] == close {
			return words, k + 1, true
		}
		return nil, k, false
	}
}

// firstString returns the first argument after a call name: a string
// literal, or (dyn) an expression that is not one.
func firstString(rest string) (string, bool, bool) {
	k := 0
	for k < len(rest) && (rest[k] == ' ' || rest[k] == '(' || rest[k] == '\t') {
		k++
	}
	if k >= len(rest) {
		return "", false, false
	}
	if rest[k] == '-' { // Remove-Item -Recurse -Path 'x'
		for k < len(rest) && rest[k] != '\'' && rest[k] != '"' && rest[k] != ';' && rest[k] != '\n' {
			k++
		}
		if k >= len(rest) || rest[k] == ';' || rest[k] == '\n' {
			return "", false, false
		}
	}
	q := rest[k]
	if q == '\'' || q == '"' || q == '`' {
		j := strings.IndexByte(rest[k+1:], q)
		if j < 0 {
			return "", false, false
		}
		v := rest[k+1 : k+1+j]
		if q == '`' && strings.Contains(v, "${") || q == '"' && (strings.Contains(v, "#{") || strings.Contains(v, "$")) {
			return v, true, true
		}
		if v == "" {
			return "", false, false
		}
		return v, false, true
	}
	if k < len(rest) && (isIdent(rest[k]) || rest[k] == '$') {
		e := k
		for e < len(rest) && (isIdent(rest[e]) || rest[e] == '.' || rest[e] == '$') {
			e++
		}
		return rest[k:e], true, true
	}
	return "", false, false
}

// ---- verbs of tree CLIs ----

type verb uint8

const (
	verbNone verb = iota
	verbRead
	verbChange
	verbDestroy
	verbUnknown
)

var destroyVerbs = []string{"delete", "remove", "rm", "rb", "destroy", "terminate", "purge", "drop", "prune", "uninstall",
	"wipe", "erase", "deregister", "deprovision", "revoke", "disable", "truncate", "empty", "nuke", "kill", "reset", "archive",
	"decommission", "abandon", "cancel", "detach", "unlink", "cleanup", "clear", "deactivate", "release", "stop", "evict", "flush", "rotate"}

var readVerbs = []string{"list", "ls", "describe", "get", "show", "view", "status", "info", "version", "help", "whoami",
	"search", "inspect", "logs", "log", "cat", "lookup", "read", "query", "check", "checks", "diff", "plan", "validate", "preview",
	"explain", "print", "tail", "watch", "wait", "head", "estimate", "test", "simulate", "verify", "browse",
	"api", "auth", "config", "doctor", "env", "completion", "docs", "whoami", "identity", "presign", "compare",
	"filter", "find", "count", "stat", "download", "export", "fetch", "pull", "clone", "checkout", "tree", "outputs",
	"output", "summary", "report", "audit", "metrics", "trace", "ping", "login", "current", "list-all", "usage", "quota"}

// treeVerb classifies the subcommand path of a tree CLI by its words: a
// destroy verb anywhere wins, then a change, then a read; a path with
// no known verb is unknown.
func treeVerb(words []string) verb {
	best := verbNone
	for _, w := range words {
		w = strings.ToLower(w)
		head := w
		if k := strings.IndexAny(w, "-_"); k > 0 {
			head = w[:k]
		}
		if hasWord(destroyVerbs, head) || hasWord(destroyVerbs, w) {
			return verbDestroy
		}
		switch {
		case changeVerb(head):
			best = verbChange
		case hasWord(readVerbs, head) && best == verbNone:
			best = verbRead
		}
	}
	if best == verbNone {
		return verbUnknown
	}
	return best
}

var changeVerbs = []string{"create", "update", "set", "put", "add", "deploy", "apply", "run", "start", "restart", "scale",
	"upload", "push", "publish", "tag", "attach", "associate", "enable", "modify", "patch", "replace", "import", "copy",
	"merge", "edit", "install", "invoke", "exec", "register", "approve", "close", "reopen", "comment", "fork", "cp", "mv",
	"sync", "mb", "authorize", "grant", "allocate", "launch", "reboot", "resize", "restore", "rename", "move", "transfer",
	"change", "promote", "rollback", "write", "send", "submit", "trigger", "dispatch", "rerun", "lock", "unlock", "ssh"}

func changeVerb(w string) bool { return hasWord(changeVerbs, w) }

func hasWord(list []string, w string) bool {
	for _, s := range list {
		if s == w {
			return true
		}
	}
	return false
}
