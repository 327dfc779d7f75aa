package policy

import (
	"slices"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/internal/world"
)

// Credentials, secrets and the environment: reading, printing and sending them.

// broadReads flags commands that read, copy or archive the whole home
// directory or file system, and searches for key files outside the
// workspace.
func (k *cmdCheck) broadReads() {
	line := k.prog.Line
	if line == nil || !line.TreeReads {
		return
	}
	recursive := line.Recursive || k.hasShort('r', "--recursive") || k.hasShort('R') || k.hasShort('a', "--archive")
	if !recursive {
		return
	}
	for _, a := range k.operands() {
		p := k.e.abs(a.Value, k.c.Cwd)
		if p == "" || k.e.inWorkspace(p) {
			continue
		}
		if p == k.e.home || p == "/" {
			k.emitAt(sg2601ask, a.Span, quote(k.said())+" reads every file under "+quote(a.Value)+", including secrets")
			return
		}
	}
}

// keySearch flags a search (find's check) for key or credential files
// by name outside the workspace.
func (k *cmdCheck) keySearch() {
	for i, a := range k.args {
		if (a.Value == "-name" || a.Value == "-iname" || a.Value == "-path") && i+1 < len(k.args) {
			n := strings.ToLower(k.args[i+1].Value)
			if strings.Contains(n, "id_rsa") || strings.Contains(n, "id_ed25519") || strings.Contains(n, ".pem") || strings.Contains(n, "credentials") ||
				strings.Contains(n, ".env") || strings.Contains(n, "wallet") || strings.Contains(n, ".kdbx") || strings.Contains(n, "secret") || strings.Contains(n, ".key") {
				for _, r := range k.args[:i] {
					if strings.HasPrefix(r.Value, "-") {
						break
					}
					if p := k.e.abs(r.Value, k.c.Cwd); p != "" && !k.e.inWorkspace(p) {
						k.emitAt(sg2601ask, k.args[i+1].Span, "searches for key or credential files outside the workspace")
						return
					}
				}
			}
		}
	}
}

func (k *cmdCheck) credentials() {
	k.broadReads()
	// a program that reads only names (+names) touches no secret it is
	// given the path of
	if k.c.Remote || k.prog.Line != nil && k.prog.Line.Names && !k.has("-exec", "-execdir", "-fprint", "-fls") {
		k.printsSecrets()
		return
	}
	e := k.e
	for _, a := range k.args {
		v := a.Value
		if v == "" {
			continue
		}
		// options like --data-binary=@file or key=value
		cands := []string{v}
		if i := strings.IndexByte(v, '@'); i >= 0 {
			cands = append(cands, v[i+1:])
		}
		if i := strings.IndexByte(v, '='); i >= 0 {
			cands = append(cands, v[i+1:])
		}
		for _, cnd := range cands {
			if !(strings.HasPrefix(cnd, "/") || strings.HasPrefix(cnd, "~") || strings.HasPrefix(cnd, ".") || strings.Contains(cnd, "/")) {
				continue
			}
			p := e.abs(cnd, k.c.Cwd)
			if strings.HasPrefix(p, "/proc/") && (strings.HasSuffix(p, "/environ")) {
				k.emitAt(sg2602, a.Span, "reads process environment "+quote(p)+" (secrets)")
				return
			}
			if what := e.credentialPath(p); what != "" {
				k.emitAt(sg2601deny, a.Span, "touches credentials: "+quote(what))
				return
			}
		}
	}
	for _, r := range k.c.Redirects {
		if r.Write || r.Target.Dynamic {
			continue
		}
		p := e.abs(r.Target.Value, r.Cwd)
		if r.Op == "<<" || r.Op == "<<<" || r.Op == "<<-" {
			continue
		}
		if strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ") {
			k.emitAt(sg2602, r.Span, "reads process environment "+quote(p)+" (secrets)")
			return
		}
		if what := e.credentialPath(p); what != "" {
			k.emitAt(sg2601deny, r.Span, "reads credentials: "+quote(what))
			return
		}
	}
	k.printsSecrets()
}

// printsSecrets flags commands whose purpose is to print secrets: the
// check their line names with prints=.
func (k *cmdCheck) printsSecrets() {
	if g := k.prog.Line; g != nil && g.Prints != "" {
		prints[g.Prints](k)
	}
	if strings.HasPrefix(k.name, "docker-credential-") {
		k.emit(sg2603deny, "reads registry credentials")
	}
}

// isEnvDump reports a command that prints the environment: a program
// whose line says +envdump given only options, or the shell's set,
// export and declare listing the variables.
func isEnvDump(c *analyze.Command) bool {
	n := c.Name()
	switch n {
	case "set", "export", "declare":
		return len(c.Argv) == 1 || len(c.Argv) == 2 && (c.Argv[1] == "-p" || c.Argv[1] == "-x")
	}
	if g := grammar.Resolve(n).Line; g == nil || !g.EnvDump {
		return false
	}
	for _, a := range c.Argv[1:] {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// secretVar reports a variable whose value is a secret: one with a
// secret's name (world.SecretName), or one this command text assigns a
// value that expands such a variable (t=$GITHUB_TOKEN; export K="$t"),
// whatever the order of the assignments (failing closed).
func (e *evaluator) secretVar(v string) bool {
	if world.SecretName(v) {
		return true
	}
	if e.aliases == nil {
		e.aliases = map[string]bool{}
		for changed := true; changed; {
			changed = false
			for _, c := range e.res.Commands {
				for _, as := range c.Assigns {
					if e.aliases[as.Name] {
						continue
					}
					for _, x := range as.Value.Vars {
						if (world.SecretName(x) || e.aliases[x]) && !slices.Contains(as.Value.Measured, x) {
							e.aliases[as.Name], changed = true, true
							break
						}
					}
				}
			}
		}
	}
	return e.aliases[v]
}

// onlyLoopback reports a command whose URLs all name this machine (and
// that has one): what it sends there does not leave it.
func (k *cmdCheck) onlyLoopback() bool {
	n := 0
	for _, a := range k.args {
		if a.Dynamic || !strings.Contains(a.Value, "://") {
			continue
		}
		if !world.Loopback(world.HostOf(a.Value)) {
			return false
		}
		n++
	}
	return n > 0
}

func (k *cmdCheck) secretVars() {
	// a network client sends its words; a resolver (+resolves) the host
	// names among them
	if !isNetwork(k.c) && (k.prog.Line == nil || !k.prog.Line.Resolves) {
		return
	}
	for i, a := range k.args {
		for _, v := range a.Vars {
			if !k.e.secretVar(v) || slices.Contains(a.Measured, v) {
				continue
			}
			// A token in an authentication header sent to its own
			// service (GITHUB_TOKEN to github.com), or to a service on
			// this machine, is what it is for.
			if i > 0 && isAuthFlag(k.args[i-1].Value, a.Value) && (k.tokenForHost(v) || k.onlyLoopback()) {
				continue
			}
			k.emitAt(sg2704, a.Span, "sends the secret variable $"+v+" over the network")
			return
		}
	}
	for _, a := range k.args {
		for _, j := range a.Subst {
			if j >= 0 && j < len(k.e.res.Commands) {
				if sc := k.e.res.Commands[j]; k.e.readsCredentials(sc) {
					k.emitAt(sg2707, a.Span, "sends secrets or the environment over the network")
					return
				}
			}
		}
	}
	// credentials or environment fed into a network command
	if k.c.StdinPipe {
		up := k.e.upstream(k.c)
		if anyOf(up, isEnvDump) {
			k.emit(sg2707, "sends the environment over the network")
		} else if anyOf(up, func(c *analyze.Command) bool { return k.e.readsCredentials(c) }) {
			k.emit(sg2707, "sends credentials over the network")
		}
	}
}

func isAuthFlag(flag, val string) bool {
	if len(flag) > 2 && flag[0] == '-' && flag[1] != '-' {
		flag = "-" + flag[len(flag)-1:] // grouped short flags: -sH
	}
	switch flag {
	case "-u", "--user", "--oauth2-bearer", "--header", "-H", "--http-user", "--http-password", "--password":
		if flag == "-H" || flag == "--header" {
			l := strings.ToLower(val)
			return strings.HasPrefix(l, "authorization:") || strings.HasPrefix(l, "private-token:") || strings.HasPrefix(l, "x-api-key:") ||
				strings.HasPrefix(l, "x-auth-token:") || strings.HasPrefix(l, "api-key:")
		}
		return true
	}
	return false
}

// tokenForHost reports whether every URL of the command goes to the
// service the variable is named after.
func (k *cmdCheck) tokenForHost(v string) bool {
	parts := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == '_' })
	found := false
	for _, a := range k.args {
		u := a.Value
		i := strings.Index(u, "://")
		if i < 0 {
			continue
		}
		host := u[i+3:]
		if j := strings.IndexAny(host, "/?#:"); j >= 0 {
			host = host[:j]
		}
		// the registrable name: "github" in api.github.com, never a
		// prefix of someone else's domain (github.com.evil.example)
		labels := strings.Split(host, ".")
		if len(labels) < 2 {
			return false
		}
		site := labels[len(labels)-2]
		ok := false
		for _, p := range parts {
			if len(p) >= 3 && p == site {
				ok = true
			}
		}
		if !ok {
			return false
		}
		found = true
	}
	return found
}

func (e *evaluator) readsCredentials(c *analyze.Command) bool {
	if len(c.Argv) == 0 {
		return false // "$1" with no arguments expands to nothing
	}
	for _, a := range c.Argv[1:] {
		if secretFile(a) {
			return true
		}
		if strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || strings.Contains(a, "/") {
			if e.credentialPath(e.abs(a, c.Cwd)) != "" || strings.HasPrefix(e.abs(a, c.Cwd), "/etc/") {
				return true
			}
		}
	}
	for _, r := range c.Redirects {
		if !r.Write && (secretFile(r.Target.Value) || e.credentialPath(e.abs(r.Target.Value, r.Cwd)) != "") {
			return true
		}
	}
	return isEnvDump(c)
}

func (k *cmdCheck) echoSecret() {
	// printing into a pipe or a file does not show the value
	if len(k.c.Redirects) > 0 {
		for _, r := range k.c.Redirects {
			if r.Write && (r.N == "" || r.N == "1") {
				return
			}
		}
	}
	for _, p := range k.c.Pipes {
		for _, o := range k.e.res.Commands {
			for _, q := range o.Pipes {
				if q.ID == p.ID && q.Stage > p.Stage {
					return
				}
			}
		}
	}
	for _, a := range k.args {
		for _, v := range a.Vars {
			if k.e.secretVar(v) && !k.c.StdinPipe && !slices.Contains(a.Measured, v) {
				k.emitAt(sg2604, a.Span, "prints the secret variable $"+v)
				return
			}
		}
	}
}

// The prints= checks: what a program prints or does through its service
// (secrets from a store, a cloud or the environment; what its service
// deletes). printsSecrets runs the one its line names.

// joined is the command's words after the name, each between spaces.
func (k *cmdCheck) joined() string {
	return " " + strings.Join(k.c.Argv[1:], " ") + " "
}

func (k *cmdCheck) ghPrints() {
	if sub, rest := k.sub(); len(rest) > 0 && (rest[0].Value == "delete" || rest[0].Value == "delete-asset") && sub != "auth" {
		k.emit(sg3205deny, "gh "+sub+" "+rest[0].Value+" deletes a hosted resource")
	}
}

func (k *cmdCheck) keychainPrints() {
	if sub, _ := k.sub(); strings.HasPrefix(sub, "find-") && strings.HasSuffix(sub, "password") || sub == "dump-keychain" || sub == "export" {
		k.emit(sg2603deny, "reads secrets from the keychain")
	}
}

func (k *cmdCheck) awsPrints() {
	if sub, rest := k.sub(); sub == "sts" && len(rest) > 0 && rest[0].Value == "get-session-token" || sub == "ecr" && len(rest) > 0 && rest[0].Value == "get-login-password" {
		k.emit(sg2603deny, "prints cloud credentials")
	}
	if joined := k.joined(); strings.Contains(joined, " secretsmanager get-secret-value ") || strings.Contains(joined, " ssm get-parameter") && strings.Contains(joined, "--with-decryption") {
		k.emit(sg2603deny, "prints a secret from the cloud secret store")
	}
}

func (k *cmdCheck) gcloudPrints() {
	if hasArgA(k.args, "print-access-token", "print-identity-token") {
		k.emit(sg2603deny, "prints cloud credentials")
	}
	if strings.Contains(k.joined(), " secrets versions access ") {
		k.emit(sg2603deny, "prints a secret from the cloud secret store")
	}
}

func (k *cmdCheck) azPrints() {
	if hasArgA(k.args, "get-access-token") {
		k.emit(sg2603deny, "prints cloud credentials")
	}
	if joined := k.joined(); strings.Contains(joined, " keyvault secret show ") || strings.Contains(joined, " keyvault secret download ") {
		k.emit(sg2603deny, "prints a secret from the key vault")
	}
}

func (k *cmdCheck) herokuPrints() {
	if joined := k.joined(); strings.Contains(joined, " config ") && !strings.Contains(joined, " config:set ") || strings.HasSuffix(strings.TrimSpace(joined), "config") {
		k.emit(sg2603ask, "prints the app's configuration variables (secrets)")
	}
}

func (k *cmdCheck) kafkaPrints() {
	if strings.Contains(k.joined(), " --delete ") {
		k.emit(sg3205deny, "deletes a Kafka topic")
	}
}

func (k *cmdCheck) curlPrints() {
	for i, a := range k.args {
		if (a.Value == "-X" || a.Value == "--request") && i+1 < len(k.args) && strings.EqualFold(k.args[i+1].Value, "DELETE") ||
			strings.EqualFold(a.Value, "-XDELETE") || strings.EqualFold(a.Value, "--request=DELETE") {
			if k.remoteTarget() {
				k.emit(sg3205ask, "sends an HTTP DELETE to a remote service")
			}
			return
		}
	}
}

func (k *cmdCheck) kubectlPrints() {
	if sub, _ := k.sub(); sub == "config" && hasArgA(k.args, "--raw") {
		k.emit(sg2603deny, "prints cluster credentials")
	}
}

func (k *cmdCheck) gitPrints() {
	if sub, rest := k.sub(); sub == "credential" && len(rest) > 0 && rest[0].Value == "fill" {
		k.emit(sg2603deny, "asks git's credential helper for a password")
	}
}

// storePrints: a password store's read verbs print a secret.
func (k *cmdCheck) storePrints() {
	if k.storeVerb(false) {
		k.emit(sg2603deny, "reads a secret from a password store")
	}
}

// passPrints: pass NAME prints the secret NAME; only ls and init do not.
func (k *cmdCheck) passPrints() {
	if k.storeVerb(true) {
		k.emit(sg2603deny, "reads a secret from a password store")
	}
}

func (k *cmdCheck) storeVerb(nameReads bool) bool {
	sub, rest := k.sub()
	if (sub == "kv" || sub == "item") && len(rest) > 0 {
		sub = rest[0].Value // a group: its verb says (vault kv list lists names)
	}
	return sub == "lookup" || sub == "read" || sub == "show" || sub == "get" || sub == "print" || sub == "item" || sub == "kv" || (nameReads && sub != "ls" && sub != "" && sub != "init")
}

func (k *cmdCheck) printenvPrints() {
	if len(k.operands()) == 0 && !k.dumpReduced() {
		k.emit(sg2604, "prints the whole environment (may hold secrets)")
	}
	for _, a := range k.operands() {
		if world.SecretName(a.Value) {
			k.emitAt(sg2604, a.Span, "prints the secret variable "+a.Value)
			break
		}
	}
}

func (k *cmdCheck) envPrints() {
	if (len(k.args) == 0 || allOptions(k.args)) && !k.dumpReduced() {
		k.emit(sg2604, "prints the whole environment (may hold secrets)")
	}
}

// exportPrints: export, declare (typeset) with no assignment list the
// exported variables.
func (k *cmdCheck) exportPrints() {
	if len(k.c.Assigns) == 0 && (len(k.args) == 0 || allOptions(k.args) && hasArgA(k.args, "-p", "-x", "-px")) && !k.dumpReduced() {
		k.emit(sg2604, "prints exported variables (may hold secrets)")
	}
}

func (k *cmdCheck) setPrints() {
	if len(k.args) == 0 && !k.dumpReduced() {
		k.emit(sg2604, "prints every shell variable (may hold secrets)")
	}
}

func (k *cmdCheck) gpgPrints() {
	if hasArgA(k.args, "--export-secret-keys", "--export-secret-subkeys", "--export-ssh-key") {
		k.emit(sg2603deny, "exports private keys")
	}
}

// dumpReduced reports an environment or variable dump whose output only
// goes into the next stage of its pipeline, and that stage prints no
// value of a secret: it counts (wc, grep -c), or it keeps only the lines
// of variables (or functions) it names, and those names are not
// secret-like (env | grep ^PATH, set | sed -n '/^f ()/,/^}/p'). A count
// derived from a secret is not the secret; a variable picked by name is
// judged by its name, as printenv NAME is.
func (k *cmdCheck) dumpReduced() bool {
	for _, r := range k.c.Redirects {
		if r.Write && (r.N == "" || r.N == "1") {
			return false
		}
	}
	if len(k.c.Pipes) == 0 {
		return false
	}
	p := k.c.Pipes[len(k.c.Pipes)-1]
	var next *analyze.Command
	for _, o := range k.e.res.Commands {
		for _, q := range o.Pipes {
			if q.ID == p.ID && q.Stage == p.Stage+1 {
				next = o
				break
			}
		}
		if next != nil {
			break
		}
	}
	return next != nil && reducesDump(next)
}

// reNamedLine matches a pattern that keeps only lines starting with a
// name: ^NAME, ^NAME=, ^NAME (), ^NAME$.
var reNamedLine = lazyre.New(`^\^\(?([A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z_][A-Za-z0-9_]*)*)\)?(=.*|\$|\s*\(\s*\).*|\b.*)?$`)

// reSedNamed matches a sed script that prints only a range starting at a
// line that starts with a name: /^NAME…/p or /^NAME…/,/…/p.
var reSedNamed = lazyre.New(`^\s*/\^([A-Za-z_][A-Za-z0-9_]*)[^/]*/\s*(,\s*/[^/]*/)?\s*p\s*;?\s*$`)

// namedNotSecret reports a pattern that keeps lines starting with names
// (^PATH, ^(GO|CGO_)), none of them secret-like.
func namedNotSecret(re interface{ FindStringSubmatch(string) []string }, s string) bool {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	// a name not closed by "=", "$" or "()" keeps every variable it
	// starts (^AWS_ keeps AWS_SECRET_ACCESS_KEY)
	rest := m[2]
	k := 0
	for k < len(rest) && (rest[k] == '_' || isAlnum(rest[k])) {
		k++
	}
	open := rest[:k] + "*"
	if k < len(rest) && strings.IndexByte("=$( ", rest[k]) >= 0 {
		open = rest[:k]
	}
	for _, n := range strings.Split(m[1], "|") {
		if world.SecretName(n + open) {
			return false
		}
	}
	return true
}

// reducesDump reports a command that, given a dump on its input, keeps
// only counts or the names of variables, none secret-like: how it
// filters is its line's keeps=.
func reducesDump(d *analyze.Command) bool {
	g := grammar.Resolve(d.Name()).Line
	if g == nil || g.Keeps == "" {
		return false
	}
	args := d.Args[1:]
	switch g.Keeps {
	case "count":
		return true
	case "fields":
		// cut -d= -f1 keeps the names, not the values
		d, f := "", ""
		for i := 0; i < len(args); i++ {
			v := args[i].Value
			for _, o := range []struct {
				short string
				to    *string
			}{{"-d", &d}, {"-f", &f}} {
				switch {
				case v == o.short && i+1 < len(args):
					i++
					*o.to = args[i].Value
				case strings.HasPrefix(v, o.short) && len(v) > 2:
					*o.to = v[2:]
				}
			}
		}
		return d == "=" && f == "1"
	case "pattern":
		var pats []string
		explicit := false
		for i := 0; i < len(args); i++ {
			v := args[i].Value
			long, _, _ := strings.Cut(v, "=")
			switch {
			case args[i].Dynamic:
				return false
			case v == "--count" || v == "--quiet" || v == "--silent" || v == "--files-with-matches" || v == "--files-without-match":
				return true
			case long == "--regexp" && strings.Contains(v, "="):
				pats = append(pats, v[len("--regexp="):])
				explicit = true
			case long == "--invert-match" || long == "--file" || long == "--null-data" || strings.HasSuffix(long, "-context"):
				// inverted, patterns from a file, one record for the whole
				// dump, or lines around a match: more than the named lines
				return false
			case long == "--max-count" || long == "--regexp" || long == "--label" || long == "--color" || long == "--colour":
				if !strings.Contains(v, "=") && long != "--color" && long != "--colour" {
					if long == "--regexp" && i+1 < len(args) {
						pats = append(pats, args[i+1].Value)
						explicit = true
					}
					i++
				}
			case strings.HasPrefix(v, "--"):
			case len(v) > 1 && v[0] == '-':
				// a group of short options; e, f, m, A, B, C, d, D take a
				// value (the rest of the group or the next word)
				for j := 1; j < len(v); j++ {
					switch c := v[j]; c {
					case 'c', 'q', 'l', 'L':
						return true
					case 'v', 'z', 'f', 'A', 'B', 'C':
						return false
					case 'e', 'm', 'd', 'D':
						val := v[j+1:]
						if val == "" && i+1 < len(args) {
							i++
							val = args[i].Value
						}
						if c == 'e' {
							pats = append(pats, val)
							explicit = true
						}
						j = len(v)
					}
				}
			case !explicit && len(pats) == 0:
				pats = append(pats, v)
			}
		}
		if len(pats) == 0 {
			return false
		}
		for _, p := range pats {
			if !namedNotSecret(reNamedLine, p) {
				return false
			}
		}
		return true
	case "script":
		quiet := false
		for _, a := range args {
			quiet = quiet || a.Value == "-n" || a.Value == "--quiet" || a.Value == "--silent"
		}
		if !quiet || len(d.Code) == 0 {
			return false
		}
		for _, cd := range d.Code {
			if cd.Dynamic || !namedNotSecret(reSedNamed, cd.Text) {
				return false
			}
		}
		return true
	}
	return false
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
