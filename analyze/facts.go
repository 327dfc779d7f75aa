// Package analyze turns a bash command into facts: every simple command the
// script can run, at any depth, with its argv resolved the way bash would
// resolve literal words, its redirects, the typed wrappers it was found
// under, the source span it came from, and the program text it runs (shell
// code, interpreter code, awk and sed programs) with what that text runs.
// The facts are all a later stage needs: it never calls back into analyze
// for a command it was given.
//
// The package is pure: it never touches the file system, the environment or
// other processes, and it never decides anything. Deciding is the job of the
// policy package. Words that cannot be known statically are marked dynamic,
// never guessed. Data (quoted strings, comments, heredocs fed to programs that
// are not shells) is data, not commands.
package analyze

import "time"

// Span is a half-open byte range [Start, End) in the analysed source.
// Commands found inside strings (the argument of "bash -c", eval, …) carry
// the span of the outer word they were found in.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Arg is one field of a command line after expansion.
type Arg struct {
	// Value is the field as bash would see it. For a dynamic field, the
	// parts that cannot be known are rendered as "$NAME" or "$(…)".
	Value string
	// Dynamic is set when some part of the word depends on runtime state
	// (an unknown variable, a command substitution, …).
	Dynamic bool
	// Glob is set when the word holds unquoted pattern characters that
	// bash would expand against the file system.
	Glob bool
	// ProcSubst is set when the field is the path of a process substitution.
	ProcSubst bool
	// Brace is set when the field came out of a brace expansion.
	Brace bool
	// ANSIC is set when the word uses $'…' quoting.
	ANSIC bool
	// IFS is set when the word expands $IFS.
	IFS bool
	// Positional is set when the word depends on positional parameters.
	Positional bool
	// Quoted is set when the word had any quoting.
	Quoted bool
	// Vars lists the variables the word expands (names only).
	Vars []string
	// Measured lists those of Vars whose value does not reach the word:
	// every expansion of them measures or tests it (${#NAME},
	// ${NAME:+text}).
	Measured []string
	// Subst holds the indices (into Result.Commands) of the commands that
	// run inside command or process substitutions of this word.
	Subst []int
	// Filled is set when a wrapper writes its input into the word at run
	// time (the replace string of xargs -I, the {} of find -exec or
	// fd -x), or appends its input where the word stands (xargs, find
	// -exec … + before a code flag left last): Value holds the
	// placeholder, and what the word holds when it runs is not known.
	Filled bool
	Span   Span
}

// Redirect is one redirection of a command or compound statement.
type Redirect struct {
	Op     string // ">", ">>", "<", "<>", ">&", "<&", ">|", "&>", "&>>", "<<", "<<-", "<<<"
	N      string // explicit fd, if any
	Target Arg    // the target word (for heredocs: the body)
	// Write is set for redirections that create or modify the target.
	Write bool
	// Cwd is the logical directory the redirect is resolved against.
	Cwd  string
	Span Span
	// Cmd is the index of the command it belongs to, or -1 for a compound
	// statement.
	Cmd int
}

// Assign is a variable assignment, either leading a command (VAR=x cmd),
// standing alone (VAR=x), or given through env/export/declare.
type Assign struct {
	Name  string
	Value Arg
	Array []Arg
	Span  Span
}

// PipePos places a command in a pipeline.
type PipePos struct {
	ID    int // unique per pipeline in one Result
	Stage int // 0 for the first stage
}

// Command is one simple command the script can run.
type Command struct {
	Argv      []string   // expanded fields (Args[i].Value)
	Args      []Arg      // the same, with detail
	Assigns   []Assign   // leading assignments (including env NAME=VAL)
	Redirects []Redirect // redirects of this command
	// Wrappers is the chain the command was found under, outermost first:
	// sudo, bash -c, eval, find -exec, function f, …
	Wrappers []Wrapper
	Span     Span
	// Cwd is the logical working directory ("" when unknown).
	Cwd string
	// Pipes lists the pipelines this command is part of.
	Pipes []PipePos
	// StdinPipe is set when stdin comes from a previous pipeline stage.
	StdinPipe  bool
	Background bool
	// InLoop is set for a command in the condition or body of a while,
	// until or for loop (it may run repeatedly).
	InLoop bool
	// Remote is set for commands that run on another host or container
	// (ssh, docker exec, kubectl exec): local paths do not apply.
	Remote bool
	// ExtraArgs is set when more arguments are appended at run time
	// (xargs, find -exec … +, parallel).
	ExtraArgs bool
	// FuncDef names the function whose definition this command belongs to
	// ("" outside function definitions). Such commands run only when the
	// function is called; calls are analysed again with their arguments.
	FuncDef string
	// Depth is the nesting depth of string-carried code (0 = top level).
	Depth int
	// Builtin is set when the command is a shell builtin, keyword-like
	// command or a function defined in the script (no program is executed).
	Builtin bool
	// Func is set when the name is a function defined in the script.
	Func bool
	// Program is the program's base name: the literal name, or the base
	// of a path whose directory a locator prints ($(which node),
	// $(npm bin)/eslint; then Located is set). "" when unknown.
	Program string
	Located bool
	// Lang is the language the program runs code in ("sh" for shells,
	// "python", "perl", "js", "awk", "sed", …; "" for other programs).
	Lang string
	// Code is the program text the command runs: shell code (sh -c,
	// eval, a here-document fed to a shell), interpreter code (python -c,
	// a here-document fed to perl), awk and sed programs. Shell code is
	// also analysed: its commands are in Result.Commands.
	Code []Code
	// StdinCode is set when the program reads the code it runs from
	// standard input (bash with no script, python -, source /dev/stdin).
	StdinCode bool
}

// Code is program text a command runs.
type Code struct {
	Lang    string // "sh", "python", "perl", "js", "ruby", "php", "awk", "sed", …
	Text    string // the text, as far as it is known
	Span    Span   // where it is in the source (the word or the here-document)
	Dynamic bool   // part of the text is only known at run time
	// Filled is set when a wrapper writes its input into the text (see
	// Arg.Filled): the code is the input's, not the command line's.
	Filled bool
	// Stdin is set when the text reaches the program on standard input
	// (a here-document, a here-string, or literal text piped into it).
	Stdin bool
	// Piped is set when the text is literal echo/printf output piped
	// into the program.
	Piped bool
	// Exec says whether the code runs shell commands and whether they
	// could be read. Commands that could be read are analysed.
	Exec Exec
	// Writes lists files the code writes by name (sed w, s///w).
	Writes []string
	// InPlace is set when the interpreter edits its file operands in
	// place (perl -i, ruby -i).
	InPlace bool
}

// Exec says whether code runs shell commands and whether they could be
// read statically.
type Exec int

const (
	ExecNone     Exec = iota // runs no shell command that could be seen
	ExecRead                 // runs shell commands, all read and analysed
	ExecComputed             // runs shell commands built at run time
	ExecOpaque               // calls an API that runs commands that could not be read
	ExecData                 // pipes its data into a shell or interpreter (awk print | "sh")
)

func (e Exec) String() string {
	switch e {
	case ExecNone:
		return "none"
	case ExecRead:
		return "read"
	case ExecComputed:
		return "computed"
	case ExecOpaque:
		return "opaque"
	case ExecData:
		return "data"
	}
	return "exec?"
}

// Via says how a wrapper runs what it wraps.
type Via int

const (
	ViaArgv   Via = iota + 1 // runs the rest of its argv: sudo, env, nice, xargs, find -exec, docker exec
	ViaShell                 // is a shell (or eval, source) running the text: sh -c, bash <<, eval
	ViaOption                // an option or argument of another program holds shell code: su -c, ssh, git -c core.pager, awk system()
	ViaFunc                  // a call of a function defined in the script
)

func (v Via) String() string {
	switch v {
	case ViaArgv:
		return "argv"
	case ViaShell:
		return "shell"
	case ViaOption:
		return "option"
	case ViaFunc:
		return "function"
	}
	return "via?"
}

// Wrapper is one link of the chain a command was found under.
type Wrapper struct {
	Program string // the wrapping program: "sudo", "bash", "find", "eval", "function"
	Text    string // as shown: "sudo", "bash -c", "find -exec", "function f"
	Via     Via
	// Stdin is set when the wrapper is a shell reading the code on
	// standard input (a here-document, a here-string, text piped in).
	Stdin bool
}

func (w Wrapper) String() string { return w.Text }

// Name returns the base name of the command ("" when there is none or it
// is dynamic).
func (c *Command) Name() string {
	if len(c.Args) == 0 || c.Args[0].Dynamic {
		return ""
	}
	return baseName(c.Args[0].Value)
}

// Shell reports whether the command is a shell program (not eval or
// source, which run code in the current shell).
func (c *Command) Shell() bool { return c.Lang == "sh" && !c.Builtin }

// NoteKind classifies structural observations that are not commands.
type NoteKind int

const (
	NoteParseError      NoteKind = iota + 1 // the parser rejected the input
	NoteNUL                                 // a NUL byte
	NoteControl                             // other control characters
	NoteCR                                  // carriage return
	NoteBidi                                // bidirectional override characters
	NoteZeroWidth                           // zero-width characters
	NoteUnicodeSpace                        // non-ASCII whitespace
	NoteInvalidUTF8                         // bytes that are not UTF-8
	NoteNonASCIIName                        // command name with non-ASCII letters
	NoteHistory                             // history expansion (!!, !$, …)
	NoteFuncDef                             // a function definition (Detail: name)
	NoteRecursiveFunc                       // function calls itself (Detail: name)
	NoteForkBomb                            // function calls itself in a pipeline or background
	NoteDepthLimit                          // nesting too deep to follow
	NoteTooLarge                            // input larger than the analysis budget (MaxInput): not parsed
	NoteUnparsedCode                        // code in a string that could not be parsed
	NoteTooManyCommands                     // more commands than the analysis budget
	NoteDynamicCode                         // code run by a wrapper is only known at run time (Wrapper says which)
	NoteTooDeep                             // nesting past MaxNesting: not parsed
	NoteWorkBudget                          // the analysis spent its work budget (Options.MaxWork) and stopped
	NoteCancelled                           // the analysis was cancelled or ran past its time (Options.MaxTime) and stopped
)

var noteNames = map[NoteKind]string{
	NoteParseError: "parse-error", NoteNUL: "nul", NoteControl: "control", NoteCR: "cr",
	NoteBidi: "bidi", NoteZeroWidth: "zero-width", NoteUnicodeSpace: "unicode-space",
	NoteInvalidUTF8: "invalid-utf8", NoteNonASCIIName: "non-ascii-name", NoteHistory: "history",
	NoteFuncDef: "func-def", NoteRecursiveFunc: "recursive-func", NoteForkBomb: "fork-bomb",
	NoteDepthLimit: "depth-limit", NoteTooLarge: "too-large", NoteUnparsedCode: "unparsed-code",
	NoteTooManyCommands: "too-many-commands", NoteDynamicCode: "dynamic-code",
	NoteTooDeep: "too-deep", NoteWorkBudget: "work-budget", NoteCancelled: "cancelled",
}

func (k NoteKind) String() string {
	if s, ok := noteNames[k]; ok {
		return s
	}
	return "note"
}

// Note is a structural observation.
type Note struct {
	Kind NoteKind
	Span Span
	// Detail is display text: the character, the parser's message, the
	// size, the function name.
	Detail string
	Cmd    int // related command index, or -1
	// Wrapper is the wrapper whose code is only known at run time
	// (NoteDynamicCode).
	Wrapper Wrapper
}

// Result holds every fact found in one command text.
type Result struct {
	Src       string
	Commands  []*Command
	Redirects []Redirect // every redirect, of commands and compounds
	Notes     []Note
	// Funcs maps function names defined in the script to their span.
	Funcs map[string]Span
	// SimpleCommands counts the simple commands written in the text and
	// in the code it carries, each once however often it runs (loops,
	// function calls): the measure of the complexity budget.
	SimpleCommands int
}

// Options tune the analysis. The zero value is usable.
type Options struct {
	// Home is the value of $HOME and ~ (default "/home/user").
	Home string
	// Workspace is the starting directory and $PWD (default "/workspace").
	Workspace string
	// Env holds further variables known to have a value (for example
	// USER). Anything else is unknown and makes a word dynamic.
	Env map[string]string
	// MaxDepth bounds how deep string-carried code is followed (default 8).
	MaxDepth int
	// MaxCommands bounds the number of facts (default 10000).
	MaxCommands int
	// MaxWork bounds the steps of the analysis: statements walked,
	// words expanded, substitutions and code followed (default
	// DefaultMaxWork). Past it the analysis stops (NoteWorkBudget).
	MaxWork int
	// MaxTime bounds how long the analysis runs (default
	// DefaultMaxTime). Past it, or when the context of AnalyzeContext
	// ends, the analysis stops (NoteCancelled).
	MaxTime time.Duration
}
