// Package grammar holds the program grammars (grammars/*.txt, one file per
// family, embedded) and reads a command's words the way the program does:
// which options take a value, the subcommand path, long-option
// abbreviations, a wrapper's inner command, a dry run, and the role of
// every operand and option value (read, write, delete, code, URL …).
// Programs are described here and nowhere else; effects turns what this
// package reads into effects, and policy asks it about a program only for
// what an effect does not say yet.
//
// The package is pure, like analyze: it reads only its embedded files.
// It is internal so that the grammar model is not part of the API of
// effects.
package grammar

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Role is what an operand or an option value is to a program.
type Role uint8

const (
	RoleArg      Role = iota // data with no effect (a pattern, a name, a number)
	RoleRead                 // a path that is read
	RoleWrite                // a path that is created or modified
	RoleDelete               // a path that is removed
	RoleExec                 // a program or script file that is run
	RoleCode                 // code in the tool's own language (see Grammar.Shell)
	RoleURL                  // a URL or host that is contacted
	RoleSend                 // a file (or @file, or - for stdin) that is sent
	RoleDir                  // a directory the rest is relative to (-C)
	RoleMode                 // a permission mode
	RoleOwner                // an owner[:group]
	RoleCmd                  // a command line the program runs (unwrapped by analyze)
	RoleSignal               // a process, job or name to signal
	RoleSub                  // a subcommand (grammar trees)
	RoleRemote               // host:path of a remote copy (scp, rsync)
	RoleWriteDir             // a directory that files are written into
	RoleProg                 // a program (or program,args) the tool runs
	RoleModule               // a module name; any other text is code (perl -M)
	RoleConfig               // KEY=VALUE settings or a file of them (cargo --config)
	RoleMethod               // an HTTP method (anything else there is the URL)
	RolePackage              // a package spec; one from a URL or a code host is code from the network
	RoleIndex                // a package source, index, repository or channel the command adds or takes packages from
	RoleRepo                 // a repository's remote: a configured name (origin) or a URL (git push REMOTE)
	RoleImage                // a container image or artifact reference; a first part with a dot, a port or localhost is its registry
	RoleAddr                 // a socket address TYPE:PARAMS,OPTS (socat): a connection, a listener, a program or a file
	RoleExpose               // a local port or address a tunnel makes reachable from outside (ngrok http 8080)
	RoleScript               // a file the program reads its own program from (awk -f, sed -f, make -f): read, and run as code
	roleCount
)

var roleNames = map[string]Role{"arg": RoleArg, "read": RoleRead, "write": RoleWrite, "delete": RoleDelete,
	"exec": RoleExec, "code": RoleCode, "url": RoleURL, "send": RoleSend, "dir": RoleDir, "mode": RoleMode,
	"owner": RoleOwner, "cmd": RoleCmd, "signal": RoleSignal, "remote": RoleRemote, "writedir": RoleWriteDir,
	"prog": RoleProg, "mod": RoleModule, "cfg": RoleConfig, "method": RoleMethod, "pkg": RolePackage,
	"index": RoleIndex, "repo": RoleRepo, "image": RoleImage, "addr": RoleAddr, "expose": RoleExpose, "script": RoleScript}

// RoleName returns the name of a role as the grammar files spell it.
func RoleName(r Role) string {
	for n, v := range roleNames {
		if v == r {
			return n
		}
	}
	return "sub"
}

// Grammar describes one program or one subcommand of a program.
type Grammar struct {
	// Name is the program, followed by the subcommand path for
	// subcommands ("git push", "aws s3 rb").
	Name   string
	Family string // the grammar file it comes from
	// Value lists the options that take a value as the next word (or
	// after "="). On a program with subcommands these are the global
	// options, skipped with their value before the subcommand.
	Value map[string]bool
	// Opts gives the role of option values ("-o": write).
	Opts map[string]Role
	// Ops gives the roles of operands in order; Rep is the index of the
	// role that repeats (-1 when none): roles after it bind to the last
	// operands.
	Ops []Role
	Rep int
	// InPlace lists options that make the read operands written.
	InPlace map[string]bool
	// Runs lists options that make the tool run a command or code (their
	// value, or the option itself).
	Runs map[string]bool
	// Recur lists options that make a delete, chmod or chown recursive.
	Recur map[string]bool
	// Skip1 lists options that give what the first operand would
	// otherwise be (grep -e PATTERN, sed -e SCRIPT): with one of them,
	// operands start at the second role.
	Skip1 map[string]bool
	// Shell lists markers in the tool's own code (RoleCode, Runs values,
	// stdin) that run a shell command; "*" means any code does.
	Shell []string
	// Stdin is set when the tool reads its commands from stdin.
	Stdin bool
	// Net is set for network clients: RoleURL operands are contacted.
	Net bool
	// Modes: an archiver whose options choose what a run does (pax -r
	// extracts, -w creates, both copy, neither lists): option → "extract"
	// or "create". Archive lists the options that name the archive.
	Modes   map[string]string
	Archive map[string]bool
	// Creates lists the files, relative to the working directory, that
	// every run of the subcommand writes (docker init: Dockerfile …).
	Creates []string
	// Sends: the subcommand uploads what it publishes (a repository, an
	// image, a package, the files it reads) to its destination, the one
	// its operands name or else the one its configuration names.
	Sends bool
	// NetClient: the program moves bytes between this machine and a host
	// named on its command line (curl, nc, ssh, rsync): what is piped
	// into it may be sent, what it prints came from the network.
	NetClient bool
	// Cloud: a cloud or hosting CLI whose delete, destroy, remove or rm
	// word, anywhere in the command (or TOPIC:destroy and the like),
	// deletes cloud resources (doctl, heroku, pulumi).
	Cloud bool
	// Writes: every run of the program changes files (rm, cp, tee, dd):
	// read-only mode refuses it whatever its operands.
	Writes bool
	// Names: the program reads only the names and attributes of its
	// operands, never their bytes (ls, stat, find, test); unlike Meta it
	// prints no digest or count of the contents either.
	Names bool
	// TreeReads: given a directory and a recursion option (-r, -R, -a)
	// the program reads every file under it (grep, cp, rsync);
	// Recursive: it does so without an option (tar, zip, rg).
	TreeReads, Recursive bool
	// Resolves: the host names the program is given are looked up (dig,
	// ping), so what a name carries leaves the machine.
	Resolves bool
	// InitCode: the program prints shell setup code made to be eval'd
	// in the current shell (eval "$(ssh-agent -s)"): "*" always,
	// otherwise when one of these words is among its arguments
	// (kubectl completion).
	InitCode []string
	// Class is what the program's commands are reported as (search,
	// read, list, silent, write, network, destructive; policy's
	// classification, which never changes a decision).
	Class string
	// Mutating: an unknown subcommand is reported as Unknown.
	Mutating bool
	// Tree: subcommand words at any depth are classified by their verb
	// (cloud CLIs: "aws ec2 terminate-instances").
	Tree bool
	// System is a system effect kind every use of this grammar has.
	System string
	// Wrapper: the operands are a command line the program runs.
	Wrapper bool
	// WrapOpts: after one of these options the words are a command line
	// the program runs (nix develop -c, cmake -E).
	WrapOpts map[string]bool
	// Assign gives the role of the value of NAME=VALUE operands (make
	// SHELL=/bin/sh: a program).
	Assign map[string]Role
	// EnvOpts are environment variables whose value the program reads
	// as more of its own options (MAKEFLAGS, GOFLAGS).
	EnvOpts map[string]bool
	// Env gives the role of the value of environment variables the
	// program reads, whoever sets them (GIT_SSH_COMMAND: cmd, CC: prog,
	// PYTHONSTARTUP: exec); "opts" puts a variable in EnvOpts.
	Env map[string]Role
	// CfgProg are the last keys of RoleConfig settings whose value is a
	// program or a command line (runner, rustc-wrapper, linker).
	CfgProg map[string]bool
	// Switches are options that take no value, listed so that GNU-style
	// abbreviations resolve (git push --forc is --force).
	Switches map[string]bool
	// Abbrev: the program accepts any unambiguous prefix of a long
	// option (GNU getopt_long, git's parse-options).
	Abbrev bool
	// Describe lists options that make the program only describe its
	// operands (command -v): nothing is run.
	Describe map[string]bool
	// Dry lists options that make the run a rehearsal that changes
	// nothing (--dry-run, rsync -n); "--dry-run=none" style values that
	// undo it are not dry.
	Dry map[string]bool
	// Dashlong: options are words with a single dash (find -name).
	Dashlong bool
	// Interp: an interpreter whose operand is a script and whose
	// code options are program code (python, node, perl, …).
	Interp bool
	// ReadOnly marks a subcommand that changes nothing.
	ReadOnly bool
	// Meta: the tool reads only names, sizes or digests of its read
	// operands (ls, du, wc, sha256sum): its reads are marked Meta.
	Meta bool
	// Verbs: the words of the subcommand path are classified by their
	// verb like a Tree CLI's (docker rm, kubectl delete, helm uninstall).
	Verbs bool
	// Destroy: every use destroys state that cannot be recovered
	// (git update-ref); DestroyOpts: options that make it so.
	Destroy     bool
	DestroyOpts map[string]bool
	// SoftVerbs destroy only what is local and disposable (docker rm of
	// a container) unless a RemoteOpts option points the CLI at another
	// host or context.
	SoftVerbs  map[string]bool
	RemoteOpts map[string]bool
	// Secrets: what the tool reads it decrypts or reveals (sops, age).
	Secrets bool
	// SecretsWith: as Secrets, only with one of these options (gpg -d).
	SecretsWith []string
	// Reveals says when the subcommand prints a secret (gh auth token):
	// "*" always; "-opt" with that option; "=NAME" when the first operand
	// is NAME or starts with it (kubectl get secret); "@" when the first
	// operand names a setting whose name is secret-like (aws configure
	// get aws_secret_access_key). Options and names must both hold.
	Reveals []string
	// GitShort: a package spec owner/repo names a GitHub repository
	// (npm and its kin); elsewhere it is a local path.
	GitShort bool
	// CodeReads lists markers in the tool's code after which comes a
	// file the code reads (awk getline <, sed r, sqlite readfile(); "~"
	// marks a marker found anywhere, the others start a command.
	CodeReads []string
	// MetaOpts are options that make the reads Meta (grep -c, -l, -q).
	MetaOpts map[string]bool
	// StdoutOpts send the result to standard output, so the operands
	// that would be rewritten are only read (gzip -c, xz --stdout).
	StdoutOpts map[string]bool
	// Subs holds the subcommands.
	Subs map[string]*Grammar
	// Aliases are other names of the program.
	Aliases []string
	// Check names the policy check that the program's commands are
	// handed to, beside the effects every command gets (check=).
	Check string
	// CheckRO lists words (options, or listing words such as status)
	// with which a run of the program changes nothing (help, version,
	// a listing, a rehearsal): its Check does not judge a command with
	// one of them anywhere among its arguments (ro=). Its effects are
	// judged as any command's.
	CheckRO map[string]bool
	// Prints names the policy check of what the program prints or does
	// through its service (a secret from a store or a cloud, the
	// environment, a hosted resource it deletes), run with the
	// credential checks (prints=).
	Prints string
	// Targets says which words policy's write check takes for the paths
	// the program writes (targets=): all (every operand), last (the last
	// operand, made from the others), dest (the last of two or more and
	// the values of write= options), moved (every operand of two or more),
	// inplace (the operands beside code that edits in place), clone (the
	// directory of a clone subcommand).
	Targets string
	// URLName: the program saves a download under the last part of its
	// URL (urlname=): "*" always, unless it is told a file to write;
	// otherwise with one of these options (curl -O), a short one also
	// within a cluster (-sO).
	URLName map[string]bool
	// Keeps says how the program filters a listing it reads (keeps=):
	// count (only counts, wc), fields (cut -d= -f1 keeps names), pattern
	// (grep's patterns name the lines kept), script (sed -n /^NAME/p).
	Keeps string
	// Verbatim: given no operand, the program prints its standard input
	// unchanged (cat), so a here-document fed to it is what it prints.
	Verbatim bool
	// External: what the program prints comes from outside the command
	// line (the network, a file, a database: curl, cat, psql).
	External bool
	// EnvDump: given only options, the program prints the whole
	// environment (env, printenv).
	EnvDump bool
	// Decodes: the program's output decodes its input (decodes=): "*"
	// always (rev, zcat), otherwise with one of these options, a short
	// one also in a cluster (base64 -d, xxd -r).
	Decodes map[string]bool
	// Warns names the informational warning about the program's or
	// subcommand's commands (warns=): undo (with -r it deletes for
	// good), discard, untracked, publish (git reset, clean, push).
	Warns string
	// Exit1 says what exit code 1 means (exit1=): nomatch, differ, false.
	Exit1 string
	// Waits: the program only waits (sleep); a loop of it and a check
	// is polling.
	Waits bool
	// Project: the program runs code its working directory holds (a
	// Makefile, package.json's scripts, build.rs, tests): run in a
	// directory downloaded earlier in the line, it runs downloaded code.
	Project bool
	// Variants: NAME.SUFFIX of the program or of one of its aliases is
	// the program too (mkfs.minix, python3.14).
	Variants bool
	// Opaque: the line names the program (for its check and aliases)
	// but not how it reads its words: Lookup does not return it, so its
	// arguments are judged as an unknown program's.
	Opaque bool
	// Prefix: the line names a prefix, not a program; PREFIXprog is prog
	// run by another tool (zsh's zf_rm is rm as a builtin of the shell),
	// and the line's Check judges every such name.
	Prefix     bool
	Parent     *Grammar
	anyWrapper bool
	anyDry     bool // g or one of its subcommands has dry options
}

//go:embed grammars/*.txt
var grammarFiles embed.FS

var (
	grammarOnce sync.Once
	grammarTab  map[string]*Grammar
	grammarErr  error
)

// Grammars returns every program grammar, parsed once. It panics only if
// the embedded files are malformed, which the tests rule out.
func Grammars() map[string]*Grammar {
	grammarOnce.Do(func() {
		grammarTab, grammarErr = loadGrammars()
	})
	if grammarErr != nil {
		panic(grammarErr)
	}
	return grammarTab
}

// Lookup returns the grammar of a program name (nil when unknown, when
// its line is +opaque and for a +prefix line). Only
// the lines of the program asked for are parsed, on first use, and only
// the files that hold them are read (grammar_index.go, generated from
// grammars/ by TestGrammarIndex): a command names a handful of programs,
// and parsing all ~700 grammars, or even scanning every file, up front
// would cost a short-lived CLI more than the check itself.
func Lookup(name string) *Grammar {
	if g := lookup(name); g != nil && !g.Opaque && !g.Prefix {
		return g
	}
	return nil
}

// lookup is Lookup with the +opaque lines.
func lookup(name string) *Grammar {
	if name == "" || strings.ContainsAny(name, " \t\n\r#") {
		return nil // no grammar line can name it
	}
	lazy.mu.RLock()
	g, ok := lazy.parsed[name]
	lazy.mu.RUnlock()
	if ok {
		return g
	}
	top := name
	if i, ok := slices.BinarySearch(genAliases[:], name); ok {
		top = genAliasOf[i]
	}
	var files uint16
	if i, ok := slices.BinarySearch(genPrograms[:], top); ok {
		files = genProgramFiles[i]
	} else if k := strings.LastIndexByte(name, '.'); k > 0 {
		// a variant NAME.SUFFIX of a program that says it has them
		if g := lookup(name[:k]); g != nil && g.Variants && g.Parent == nil {
			return g
		}
		return nil
	}
	tab := map[string]*Grammar{}
	for i, family := range genFiles {
		if files&(1<<i) == 0 {
			continue
		}
		var err error
		grammarFile(i).linesOf(top, func(line string, n int) {
			if e := parseGrammarLine(tab, family, line); e != nil && err == nil {
				err = fmt.Errorf("grammars/%s.txt:%d: %v", family, n, e)
			}
		})
		if err != nil {
			panic(err)
		}
	}
	for _, g := range tab {
		g.markWrappers()
	}
	lazy.mu.Lock()
	defer lazy.mu.Unlock()
	if g, ok := lazy.parsed[name]; ok {
		return g // another goroutine parsed it meanwhile
	}
	for n, g := range tab {
		lazy.parsed[n] = g
	}
	return lazy.parsed[name]
}

// EnvReader returns the grammar of the program that reads environment
// variable name as a command, a program, a file to run or more of its
// options (its Env or EnvOpts say which), or nil. The variable is read
// by that program wherever it runs: NODE_OPTIONS set for npm test is
// read by the node it starts.
func EnvReader(name string) *Grammar {
	i, ok := slices.BinarySearch(genEnvVars[:], name)
	if !ok {
		return nil
	}
	return Lookup(genEnvOf[i])
}

// Program is a command name as the grammars read it.
type Program struct {
	// Name is the program's own name: the written name with its alias,
	// variant (python3.14) or prefix (zf_rm) resolved; the written name
	// when no grammar knows it.
	Name string
	// Checks are the policy checks the command is handed to: the
	// program's, then its prefix's; "" when there is none.
	Checks [2]string
	// Line is the program's grammar line, +opaque lines included (nil
	// when no grammar names it): the properties policy asks about
	// (NetClient, …) are read from it, so aliases and variants share them.
	Line *Grammar
}

// Resolve reads a command name as policy needs it: the program that an
// alias, a variant (python3.14) or a name under a +prefix line (zf_rm)
// stands for, and the checks that judge it. +opaque lines count here:
// they name a program and its check.
func Resolve(name string) Program {
	if g := lookup(name); g != nil && !g.Prefix {
		return Program{Name: g.Name, Checks: [2]string{g.Check}, Line: g}
	}
	for _, pre := range genPrefixes {
		if len(name) > len(pre) && strings.HasPrefix(name, pre) {
			p := Program{Name: name, Checks: [2]string{1: lookup(pre).Check}}
			if g := lookup(name[len(pre):]); g != nil && !g.Prefix {
				p.Name, p.Checks[0], p.Line = g.Name, g.Check, g
			}
			return p
		}
	}
	return Program{Name: name}
}

// grammarFile returns the text of genFiles[i], read once, with a newline
// in front so that every line, the first too, follows one.
func grammarFile(i int) gFile {
	texts.mu.Lock()
	defer texts.mu.Unlock()
	if texts.read[i] == "" {
		b, err := grammarFiles.ReadFile("grammars/" + genFiles[i] + ".txt")
		if err != nil {
			panic(fmt.Errorf("grammars: %w (grammar_index.go is stale: go test ./internal/grammar -run TestGrammarIndex -update-index)", err))
		}
		texts.read[i] = "\n" + string(b)
	}
	return gFile{family: genFiles[i], text: texts.read[i]}
}

var texts struct {
	mu   sync.Mutex
	read [len(genFiles)]string
}

// lazy holds the grammars Lookup has parsed so far.
var lazy = struct {
	mu     sync.RWMutex
	parsed map[string]*Grammar
}{parsed: map[string]*Grammar{}}

// gFile is one embedded grammar file, with a newline in front so that
// every line starts after a '\n'.
type gFile struct {
	family string
	text   string
}

// linesOf calls fn with every line of f about program prog (its own line
// and those of its subcommands) and the line's number.
func (f gFile) linesOf(prog string, fn func(line string, n int)) {
	key := "\n" + prog
	for i := 0; ; {
		j := strings.Index(f.text[i:], key)
		if j < 0 {
			return
		}
		start := i + j + 1
		end := start + len(prog)
		i = end
		if end < len(f.text) {
			switch f.text[end] {
			case ' ', '\t', '\n', '\r':
			default:
				continue // a longer name with this prefix
			}
		}
		line := f.text[start:]
		if k := strings.IndexByte(line, '\n'); k >= 0 {
			line = line[:k]
		}
		if k := strings.Index(line, " #"); k >= 0 {
			line = line[:k]
		}
		fn(strings.TrimSpace(line), strings.Count(f.text[:start], "\n"))
	}
}

// forEachGrammarLine calls fn with each line that holds a grammar, its
// comments and surrounding space removed, and its 1-based line number.
func forEachGrammarLine(text string, fn func(line string, n int)) {
	for ln, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		fn(line, ln+1)
	}
}

func loadGrammars() (map[string]*Grammar, error) {
	tab := map[string]*Grammar{}
	entries, err := grammarFiles.ReadDir("grammars")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := grammarFiles.ReadFile("grammars/" + e.Name())
		if err != nil {
			return nil, err
		}
		if err := parseGrammarFile(tab, strings.TrimSuffix(e.Name(), ".txt"), string(b)); err != nil {
			return nil, err
		}
	}
	for _, g := range tab {
		g.markWrappers()
	}
	return tab, nil
}

// ParseGrammars parses grammar text (the format of grammars/*.txt) into
// tab. It is exported for the tests of the format.
func ParseGrammars(tab map[string]*Grammar, family, text string) error {
	return parseGrammarFile(tab, family, text)
}

func parseGrammarFile(tab map[string]*Grammar, family, text string) error {
	var err error
	forEachGrammarLine(text, func(line string, n int) {
		if err == nil {
			if e := parseGrammarLine(tab, family, line); e != nil {
				err = fmt.Errorf("grammars/%s.txt:%d: %v", family, n, e)
			}
		}
	})
	return err
}

func parseGrammarLine(tab map[string]*Grammar, family, line string) error {
	fields := strings.Fields(line)
	var path []string
	i := 0
	for ; i < len(fields); i++ {
		f := fields[i]
		if i > 0 && (strings.Contains(f, "=") || strings.HasPrefix(f, "+")) {
			break
		}
		path = append(path, f)
	}
	if len(path) == 0 {
		return fmt.Errorf("no program name")
	}
	var g *Grammar
	if len(path) == 1 {
		if tab[path[0]] != nil {
			return fmt.Errorf("program %q defined twice", path[0])
		}
		g = newGrammar(path[0], family)
		tab[path[0]] = g
	} else {
		parent := tab[path[0]]
		if parent == nil {
			return fmt.Errorf("subcommand of undefined program %q", path[0])
		}
		for _, p := range path[1 : len(path)-1] {
			next := parent.Subs[p]
			if next == nil {
				return fmt.Errorf("subcommand %q of undefined %q", p, parent.Name)
			}
			parent = next
		}
		last := path[len(path)-1]
		if parent.Subs[last] != nil {
			return fmt.Errorf("subcommand %q defined twice", strings.Join(path, " "))
		}
		g = newGrammar(strings.Join(path, " "), family)
		g.Parent = parent
		if parent.Subs == nil {
			parent.Subs = map[string]*Grammar{}
		}
		parent.Subs[last] = g
	}
	for _, f := range fields[i:] {
		if err := g.set(tab, f); err != nil {
			return err
		}
	}
	return nil
}

func newGrammar(name, family string) *Grammar {
	return &Grammar{Name: name, Family: family, Rep: -1}
}

var grammarFlags = map[string]bool{"net": true, "mutating": true, "tree": true, "wrapper": true, "dashlong": true,
	"stdin": true, "interp": true, "ro": true, "meta": true, "verbs": true, "destroy": true, "secrets": true, "abbrev": true, "gitshort": true,
	"variants": true, "prefix": true, "opaque": true, "netclient": true, "cloud": true, "writes": true, "names": true, "treereads": true, "recursive": true, "resolves": true, "verbatim": true, "external": true, "envdump": true, "waits": true, "sends": true, "project": true}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// optionList checks that every name of a field's list is an option.
func optionList(v string) error {
	for _, o := range splitList(v) {
		if o[0] != '-' {
			return fmt.Errorf("option %q does not start with -", o)
		}
	}
	return nil
}

// setFields are the fields whose value is a list added to a set of the
// grammar as it is.
var setFields = map[string]func(g *Grammar) *map[string]bool{
	"in":       func(g *Grammar) *map[string]bool { return &g.InPlace },
	"envopts":  func(g *Grammar) *map[string]bool { return &g.EnvOpts },
	"cfgprog":  func(g *Grammar) *map[string]bool { return &g.CfgProg },
	"o":        func(g *Grammar) *map[string]bool { return &g.Switches },
	"describe": func(g *Grammar) *map[string]bool { return &g.Describe },
	"dry":      func(g *Grammar) *map[string]bool { return &g.Dry },
	"recur":    func(g *Grammar) *map[string]bool { return &g.Recur },
	"skip1":    func(g *Grammar) *map[string]bool { return &g.Skip1 },
	"meta":     func(g *Grammar) *map[string]bool { return &g.MetaOpts },
	"stdout":   func(g *Grammar) *map[string]bool { return &g.StdoutOpts },
	"destroy":  func(g *Grammar) *map[string]bool { return &g.DestroyOpts },
	"soft":     func(g *Grammar) *map[string]bool { return &g.SoftVerbs },
	"remote":   func(g *Grammar) *map[string]bool { return &g.RemoteOpts },
	"decodes":  func(g *Grammar) *map[string]bool { return &g.Decodes },
}

func addSet(m *map[string]bool, v string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	for _, s := range splitList(v) {
		(*m)[s] = true
	}
}

func (g *Grammar) set(tab map[string]*Grammar, f string) error {
	if strings.HasPrefix(f, "+") && !grammarFlags[f[1:]] {
		return fmt.Errorf("unknown flag %q", f)
	}
	switch strings.TrimPrefix(f, "+") {
	case "net":
		g.Net = true
		return nil
	case "netclient":
		g.NetClient = true
		return nil
	case "cloud":
		g.Cloud = true
		return nil
	case "writes":
		g.Writes = true
		return nil
	case "names":
		g.Names = true
		return nil
	case "treereads":
		g.TreeReads = true
		return nil
	case "recursive":
		g.Recursive = true
		return nil
	case "resolves":
		g.Resolves = true
		return nil
	case "verbatim":
		g.Verbatim = true
		return nil
	case "external":
		g.External = true
		return nil
	case "envdump":
		g.EnvDump = true
		return nil
	case "waits":
		g.Waits = true
		return nil
	case "project":
		g.Project = true
		return nil
	case "sends":
		g.Sends = true
		return nil
	case "mutating":
		g.Mutating = true
		return nil
	case "tree":
		g.Tree = true
		return nil
	case "wrapper":
		g.Wrapper = true
		return nil
	case "dashlong":
		g.Dashlong = true
		return nil
	case "stdin":
		g.Stdin = true
		return nil
	case "interp":
		g.Interp = true
		return nil
	case "ro":
		g.ReadOnly = true
		return nil
	case "meta":
		g.Meta = true
		return nil
	case "verbs":
		g.Verbs = true
		return nil
	case "destroy":
		g.Destroy = true
		return nil
	case "secrets":
		g.Secrets = true
		return nil
	case "abbrev":
		g.Abbrev = true
		return nil
	case "gitshort":
		g.GitShort = true
		return nil
	case "variants", "prefix", "opaque":
		if g.Parent != nil {
			return fmt.Errorf("%s is for a program's line, not a subcommand's", f)
		}
		g.Variants = g.Variants || f == "+variants"
		g.Prefix = g.Prefix || f == "+prefix"
		g.Opaque = g.Opaque || f == "+opaque"
		return nil
	}
	k, v, ok := strings.Cut(f, "=")
	if !ok || v == "" {
		return fmt.Errorf("malformed field %q", f)
	}
	if field, ok := setFields[k]; ok {
		addSet(field(g), v)
		return nil
	}
	switch k {
	case "v":
		if err := optionList(v); err != nil {
			return err
		}
		addSet(&g.Value, v)
	case "ops":
		for j, r := range splitList(v) {
			rep := strings.HasSuffix(r, "...")
			r = strings.TrimSuffix(r, "...")
			role, ok := roleNames[r]
			if !ok {
				return fmt.Errorf("unknown role %q", r)
			}
			if rep {
				if g.Rep >= 0 {
					return fmt.Errorf("two repeated roles in %q", v)
				}
				g.Rep = j
			}
			g.Ops = append(g.Ops, role)
		}
	case "runs":
		// options that run something take it as their value
		if err := optionList(v); err != nil {
			return err
		}
		addSet(&g.Runs, v)
		addSet(&g.Value, v)
	case "wrap":
		if err := optionList(v); err != nil {
			return err
		}
		addSet(&g.WrapOpts, v)
	case "assign":
		return addRoles(&g.Assign, k, v, nil)
	case "env":
		// NAME:opts names a variable that holds options, not a role.
		return addRoles(&g.Env, k, v, func(name, r string) bool {
			if r == "opts" {
				addSet(&g.EnvOpts, name)
			}
			return r == "opts"
		})
	case "ro":
		if g.Parent != nil {
			return fmt.Errorf("ro= is for a program's line, not a subcommand's")
		}
		addSet(&g.CheckRO, v)
	case "shell":
		g.Shell = append(g.Shell, splitList(v)...)
	case "reveals":
		g.Reveals = append(g.Reveals, splitList(v)...)
	case "secrets":
		g.SecretsWith = append(g.SecretsWith, splitList(v)...)
	case "modes":
		for _, kv := range splitList(v) {
			o, m, ok := strings.Cut(kv, ":")
			if !ok || o == "" || o[0] != '-' || m != "extract" && m != "create" {
				return fmt.Errorf("modes entry %q is not -OPT:extract or -OPT:create", kv)
			}
			if g.Modes == nil {
				g.Modes = map[string]string{}
			}
			g.Modes[o] = m
			addSet(&g.Switches, o)
		}
	case "archive":
		if err := optionList(v); err != nil {
			return err
		}
		addSet(&g.Archive, v)
		addSet(&g.Value, v)
	case "creates":
		for _, f := range splitList(v) {
			if strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~") || strings.Contains(f, "..") {
				return fmt.Errorf("creates=%s: a file relative to the working directory", f)
			}
		}
		g.Creates = append(g.Creates, splitList(v)...)
	case "codereads":
		g.CodeReads = append(g.CodeReads, splitList(v)...)
	case "class":
		if g.Parent != nil {
			return fmt.Errorf("class= is for a program's line, not a subcommand's")
		}
		g.Class = v
	case "initcode":
		if g.Parent != nil {
			return fmt.Errorf("initcode= is for a program's line, not a subcommand's")
		}
		g.InitCode = append(g.InitCode, splitList(v)...)
	case "sys":
		g.System = v
	case "check":
		if g.Parent != nil {
			return fmt.Errorf("check= is for a program's line, not a subcommand's")
		}
		if g.Check != "" {
			return fmt.Errorf("two checks %q and %q", g.Check, v)
		}
		g.Check = v
	case "urlname":
		if g.Parent != nil {
			return fmt.Errorf("urlname= is for a program's line, not a subcommand's")
		}
		addSet(&g.URLName, v)
	case "warns":
		if !slices.Contains([]string{"undo", "discard", "untracked", "publish"}, v) {
			return fmt.Errorf("unknown warns=%s", v)
		}
		g.Warns = v
	case "exit1":
		if !slices.Contains([]string{"nomatch", "differ", "false"}, v) {
			return fmt.Errorf("unknown exit1=%s", v)
		}
		g.Exit1 = v
	case "keeps":
		if !slices.Contains([]string{"count", "fields", "pattern", "script"}, v) {
			return fmt.Errorf("unknown keeps=%s", v)
		}
		g.Keeps = v
	case "targets":
		if g.Parent != nil {
			return fmt.Errorf("targets= is for a program's line, not a subcommand's")
		}
		// Its values are policy's rules (policy.writeTargets); a value
		// policy has no rule for fails TestTargetsIsGrammarData, as an
		// unknown check= does.
		g.Targets = v
	case "prints":
		if g.Parent != nil {
			return fmt.Errorf("prints= is for a program's line, not a subcommand's")
		}
		g.Prints = v
	case "alias":
		for _, a := range splitList(v) {
			if tab[a] != nil {
				return fmt.Errorf("alias %q already defined", a)
			}
			tab[a] = g
			g.Aliases = append(g.Aliases, a)
		}
	default:
		role, ok := roleNames[k]
		if !ok {
			return fmt.Errorf("unknown key %q", k)
		}
		if g.Opts == nil {
			g.Opts = map[string]Role{}
		}
		if err := optionList(v); err != nil {
			return err
		}
		for _, o := range splitList(v) {
			g.Opts[o] = role
			// an option with a role takes a value
			addSet(&g.Value, o)
		}
	}
	return nil
}

// Programs returns the sorted names of the programs with a grammar
// (aliases included).
func Programs() []string {
	var out []string
	for n := range Grammars() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// wraps reports whether g or one of its subcommands is a wrapper
// (computed once when the grammars load).
func (g *Grammar) wraps() bool { return g.anyWrapper }

func (g *Grammar) markWrappers() bool {
	g.anyDry = len(g.Dry) > 0
	for _, s := range g.Subs {
		if s.markWrappers() {
			g.anyWrapper = true
		}
		g.anyDry = g.anyDry || s.anyDry
	}
	if g.Wrapper || len(g.WrapOpts) > 0 {
		g.anyWrapper = true
	}
	return g.anyWrapper
}

// up reports whether has holds for g or one of the commands it is a
// subcommand of: options and flags of a program hold for its verbs.
func (g *Grammar) up(has func(*Grammar) bool) bool {
	for x := g; x != nil; x = x.Parent {
		if has(x) {
			return true
		}
	}
	return false
}

// TakesValue, InPlaceOpt, RunsOpt, ToStdout, RecurOpt, Describes, IsNet
// and the others look option o (or the flag) up in g and the commands
// above it.
func (g *Grammar) TakesValue(o string) bool { return g.up(func(x *Grammar) bool { return x.Value[o] }) }
func (g *Grammar) InPlaceOpt(o string) bool {
	return g.up(func(x *Grammar) bool { return x.InPlace[o] })
}
func (g *Grammar) RunsOpt(o string) bool { return g.up(func(x *Grammar) bool { return x.Runs[o] }) }
func (g *Grammar) ToStdout(o string) bool {
	return g.up(func(x *Grammar) bool { return x.StdoutOpts[o] })
}
func (g *Grammar) RecurOpt(o string) bool { return g.up(func(x *Grammar) bool { return x.Recur[o] }) }
func (g *Grammar) describes(o string) bool {
	return g.up(func(x *Grammar) bool { return x.Describe[o] })
}
func (g *Grammar) dry(o string) bool { return g.up(func(x *Grammar) bool { return x.Dry[o] }) }

// known reports an option g or a command above it names anywhere.
func (x *Grammar) knows(o string) bool {
	if x.Value[o] || x.Switches[o] || x.Runs[o] || x.InPlace[o] || x.Recur[o] || x.Skip1[o] || x.MetaOpts[o] ||
		x.StdoutOpts[o] || x.DestroyOpts[o] || x.RemoteOpts[o] || x.WrapOpts[o] || x.Describe[o] || x.Dry[o] {
		return true
	}
	_, ok := x.Opts[o]
	return ok
}

// Complete returns the long option an abbreviation stands for, when
// the program accepts abbreviations and exactly one option it knows
// starts with it; otherwise o. A subcommand's abbreviations resolve
// among its own options, as git's parse-options reads the words after
// the subcommand with that subcommand's table alone (git rebase --exe
// is --exec, though git itself has --exec-path).
func (g *Grammar) Complete(o string) string {
	if len(o) < 3 || !strings.HasPrefix(o, "--") || g.up(func(x *Grammar) bool { return x.knows(o) }) {
		return o
	}
	if !g.up(func(x *Grammar) bool { return x.Abbrev }) {
		return o
	}
	found := ""
	for _, m := range []map[string]bool{g.Value, g.Switches, g.Runs, g.InPlace, g.Recur, g.Skip1, g.MetaOpts, g.StdoutOpts, g.DestroyOpts, g.RemoteOpts, g.WrapOpts, g.Describe, g.Dry} {
		for k := range m {
			if strings.HasPrefix(k, o) && k != found {
				if found != "" {
					return o // ambiguous: the program refuses it
				}
				found = k
			}
		}
	}
	for k := range g.Opts {
		if strings.HasPrefix(k, o) && k != found {
			if found != "" {
				return o
			}
			found = k
		}
	}
	if found == "" {
		return o
	}
	return found
}

func (g *Grammar) wrapOpt(o string) bool {
	return g.up(func(x *Grammar) bool { return x.WrapOpts[o] })
}
func (g *Grammar) IsNet() bool  { return g.up(func(x *Grammar) bool { return x.Net }) }
func (g *Grammar) IsMeta() bool { return g.up(func(x *Grammar) bool { return x.Meta }) }

func (g *Grammar) OptRole(o string) (Role, bool) {
	for x := g; x != nil; x = x.Parent {
		if r, ok := x.Opts[o]; ok {
			return r, true
		}
	}
	return 0, false
}

func (g *Grammar) ShellMarkers() []string {
	for x := g; x != nil; x = x.Parent {
		if len(x.Shell) > 0 {
			return x.Shell
		}
	}
	return nil
}

// RoleAt returns the role of operand i of n.
func (g *Grammar) RoleAt(i, n int) Role {
	if len(g.Ops) == 0 {
		return RoleArg
	}
	if g.Rep < 0 {
		if i < len(g.Ops) {
			return g.Ops[i]
		}
		return RoleArg
	}
	if i < g.Rep {
		return g.Ops[i]
	}
	after := len(g.Ops) - g.Rep - 1 // roles bound to the last operands
	if j := i - (n - after); j >= 0 && n-after > g.Rep {
		return g.Ops[g.Rep+1+j]
	}
	if n-after <= g.Rep && i >= g.Rep {
		// fewer operands than roles: fill the fixed ones first
		if k := g.Rep + 1 + (i - g.Rep); k < len(g.Ops) {
			return g.Ops[k]
		}
	}
	return g.Ops[g.Rep]
}

// abbrevAnywhere reports a program that takes abbreviations.
func (g *Grammar) abbrevAnywhere() bool { return g.Abbrev }

// addRoles adds the NAME:ROLE entries of the list v (field k's value) to
// *dst; other, when given, takes the entries it knows (and says so) before
// they are read as roles.
func addRoles(dst *map[string]Role, k, v string, other func(name, r string) bool) error {
	for _, kv := range splitList(v) {
		name, r, ok := strings.Cut(kv, ":")
		if ok && name != "" && other != nil && other(name, r) {
			continue
		}
		role, known := roleNames[r]
		if !ok || !known || name == "" {
			return fmt.Errorf("%s entry %q is not NAME:ROLE", k, kv)
		}
		if *dst == nil {
			*dst = map[string]Role{}
		}
		(*dst)[name] = role
	}
	return nil
}
