package policy

// Rules are the user-supplied policy inputs. The zero value means: built-in
// defaults on, no extra rules, path confinement to the workspace.
type Rules struct {
	// Prefix rules in the "npm run test *" style. A trailing " *" matches
	// any further arguments; without it the rule matches the exact argv.
	Allow []string
	Ask   []string
	Deny  []string

	// Regular expressions (RE2) matched against the whole command text
	// (deny) or against one subcommand's text (allow).
	CustomDenyPatterns  []string
	CustomAllowPatterns []string

	// AllowedCommands, when non-empty, is an executable allow-list:
	// any other command name is denied. BlockedCommands are always denied.
	AllowedCommands []string
	BlockedCommands []string

	// Workspace is the directory paths are confined to and the starting
	// directory of the command (absolute; default "/workspace").
	// AllowedRoots are further absolute directories where writes are fine.
	Workspace    string
	AllowedRoots []string

	Readonly     bool // no writes at all (rm/mv/cp/mkdir/…, output redirects)
	Unrestricted bool // no path confinement

	// DisableDefaults switches off the overridable built-in defaults.
	// The floor stays on whatever this says.
	DisableDefaults bool

	// Home is the user's home directory, the value of ~ and $HOME
	// (default "/home/user"). TempDir is a further writable temporary
	// directory ($TMPDIR); /tmp is always writable.
	Home    string
	TempDir string

	// Resolver follows symlinks for path confinement. Nil means paths
	// are resolved lexically (see OSResolver for the real file system).
	Resolver Resolver `json:"-" yaml:"-"`
}
