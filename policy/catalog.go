package policy

// Finding describes one finding ID. IDs are stable: a finding keeps its
// ID across releases, and a retired ID is never reused.
type Finding struct {
	ID    string
	Group string
	// Floor findings cannot be lowered by any rule. Findings whose
	// decision depends on the case (for example ask for an unknown
	// path, deny for a system one) list their usual decision.
	Floor   bool
	Summary string
}

// Catalog lists every finding the policy can report.
var Catalog = []Finding{
	{"SG1001", "input", false, "the command does not parse as bash (ask, with the parser's position)"},
	{"SG1002", "input", false, "NUL byte"},
	{"SG1003", "input", false, "control character"},
	{"SG1004", "input", false, "carriage return that can hide text on a terminal"},
	{"SG1005", "input", false, "bidirectional override character"},
	{"SG1006", "input", false, "zero-width or invisible character"},
	{"SG1007", "input", false, "non-ASCII whitespace"},
	{"SG1008", "input", false, "invalid UTF-8"},
	{"SG1009", "input", false, "command name with non-ASCII letters (homoglyph)"},
	{"SG1010", "input", false, "more than 50 commands (complexity budget)"},
	{"SG1011", "input", false, "nesting too deep to follow"},
	{"SG1012", "input", false, "input larger than the analysis budget"},
	{"SG1013", "input", false, "code passed to a shell or eval does not parse"},
	{"SG1014", "input", false, "argument starting with a dash lookalike"},
	{"SG1099", "input", false, "internal error while checking (fails closed to ask)"},

	{"SG2001", "destructive-fs", true, "recursive delete of / or a system directory"},
	{"SG2002", "destructive-fs", true, "recursive delete of the home directory (floor) or a configuration directory in home"},
	{"SG2003", "destructive-fs", false, "recursive delete of the whole workspace or an unscoped glob at its root"},
	{"SG2004", "destructive-fs", false, "delete outside the workspace (parent of the workspace, home, other directories)"},
	{"SG2005", "destructive-fs", false, "recursive delete of a path known only at run time"},
	{"SG2006", "destructive-fs", false, "irreversible overwrite (shred) outside the workspace"},
	{"SG2007", "destructive-fs", false, "write or delete in a system location"},
	{"SG2008", "confinement", false, "write outside the workspace and the allowed roots"},
	{"SG2010", "confinement", false, "write in read-only mode"},

	{"SG2101", "disk", true, "format, partition or erase a disk"},
	{"SG2102", "disk", true, "write to a block device"},

	{"SG2201", "privilege", false, "sudo/su/doas/pkexec and user or capability management"},
	{"SG2202", "privilege", true, "write to the sudoers configuration"},
	{"SG2203", "privilege", false, "container with host privileges or host root/secret mounts"},
	{"SG2204", "privilege", false, "chroot or namespace entry"},

	{"SG2301", "remote-code", true, "network download piped into a shell or interpreter"},
	{"SG2302", "remote-code", true, "downloaded content executed through substitution, redirection or interpreter code"},
	{"SG2303", "remote-code", false, "file downloaded (or cloned) earlier in the command is executed"},
	{"SG2304", "remote-code", false, "text from a pipe executed as a program"},
	{"SG2305", "obfuscation", false, "eval, source or sh -c of text known only at run time"},
	{"SG2306", "obfuscation", false, "decoded or transformed text executed"},

	{"SG2401", "obfuscation", false, "command name computed at run time"},
	{"SG2402", "obfuscation", false, "command name is a glob pattern"},
	{"SG2403", "obfuscation", false, "command name in $'…' quoting"},
	{"SG2404", "obfuscation", false, "command name from brace expansion"},
	{"SG2405", "obfuscation", false, "$IFS used to hide spaces, or IFS set to a non-blank separator"},
	{"SG2406", "obfuscation", false, "history expansion"},

	{"SG2501", "exec-capable", false, "interpreter code deletes files outside the workspace"},
	{"SG2502", "exec-capable", false, "interpreter code runs commands that cannot be read statically"},
	{"SG2503", "fork-bomb", true, "interpreter code forks in a loop"},
	{"SG2504", "reverse-shell", false, "interpreter code connects a socket to a shell"},
	{"SG2505", "exec-capable", false, "awk program runs commands built at run time"},
	{"SG2506", "exec-capable", false, "sed e command or s///e flag"},
	{"SG2507", "exec-capable", false, "git option that runs a command (-c core.pager, alias !, …)"},
	{"SG2508", "exec-capable", false, "tar or rg option that runs a command"},
	{"SG2510", "exec-capable", false, "ssh option that runs a local command"},
	{"SG2511", "exec-capable", false, "editor command with a shell escape"},
	{"SG2512", "exec-capable", false, "env -S splits a string into a command line"},

	{"SG2601", "credentials", false, "reads credential files or key stores, or every file under home"},
	{"SG2602", "credentials", false, "reads /proc/*/environ"},
	{"SG2603", "credentials", false, "prints tokens or keys (gh auth token, security, gcloud, gpg --export-secret-keys, …)"},
	{"SG2604", "credentials", false, "prints the environment or a secret variable"},

	{"SG2701", "exfiltration", false, "uploads credentials, secret files or the environment"},
	{"SG2702", "exfiltration", false, "uploads a local file to a remote host"},
	{"SG2703", "exfiltration", false, "redirect to /dev/tcp or /dev/udp"},
	{"SG2704", "exfiltration", false, "secret variable sent over the network (except an auth header to its own service)"},
	{"SG2705", "reverse-shell", false, "shell or program connected to a network socket (one case is floor: interactive shell on /dev/tcp)"},
	{"SG2706", "network", false, "raw network socket or tunnel"},
	{"SG2707", "exfiltration", false, "secrets or environment fed into a network command"},

	{"SG2801", "persistence", false, "write to shell or tool startup files"},
	{"SG2802", "persistence", false, "write to SSH authorized_keys"},
	{"SG2803", "persistence", false, "crontab changes and scheduled jobs"},
	{"SG2804", "persistence", false, "services or autostart definitions"},
	{"SG2805", "persistence", false, "git hooks or core.hooksPath outside the workspace"},
	{"SG2806", "persistence", false, "global git settings that change fetching or loading"},

	{"SG2901", "system", true, "shutdown, reboot, halt"},
	{"SG2902", "system", true, "kill init or every process"},
	{"SG2903", "system", false, "kernel, firewall, mount, swap, module or network configuration"},
	{"SG2904", "system", false, "system service state changes"},
	{"SG2905", "system", false, "pkill/killall of system processes or whole users"},

	{"SG3001", "fork-bomb", true, "function calls itself in a pipeline or in the background"},
	{"SG3002", "fork-bomb", false, "function calls itself"},

	{"SG3101", "git", false, "force push"},
	{"SG3102", "git", false, "git reset --hard"},
	{"SG3103", "git", false, "git clean -f"},
	{"SG3104", "git", false, "git branch -D"},
	{"SG3105", "git", false, "history rewrite (filter-branch, filter-repo)"},
	{"SG3106", "git", false, "remote branch deletion"},
	{"SG3107", "git", false, "discard every uncommitted change"},
	{"SG3108", "git", false, "stash/reflog/gc that drops recovery points"},

	{"SG3201", "infra", false, "kubectl delete/drain"},
	{"SG3202", "infra", false, "terraform destroy or unreviewed apply"},
	{"SG3203", "infra", false, "destructive SQL or database removal"},
	{"SG3204", "infra", false, "redis FLUSHALL/FLUSHDB/SHUTDOWN"},
	{"SG3205", "infra", false, "cloud resource deletion"},
	{"SG3206", "infra", false, "docker prune or volume removal"},
	{"SG3207", "infra", false, "helm uninstall"},

	{"SG3301", "zsh", false, "zsh module builtins (zmodload, zf_*, ztcp, zpty, …) and emulate -c"},

	{"SG3401", "env-hijack", false, "LD_PRELOAD, LD_AUDIT, DYLD_INSERT_LIBRARIES"},
	{"SG3402", "env-hijack", false, "BASH_ENV, ENV, BASH_FUNC_*, PROMPT_COMMAND and shell option variables"},
	{"SG3403", "env-hijack", false, "PATH with a directory outside the workspace or the current directory first"},
	{"SG3404", "env-hijack", false, "LD_LIBRARY_PATH and similar"},
	{"SG3405", "env-hijack", false, "variable holding a command line programs will run (GIT_SSH_COMMAND, PAGER, …)"},
	{"SG3406", "env-hijack", false, "interpreter start-up or module path variables pointing outside the workspace"},

	{"SG3501", "redefinition", false, "function shadows a command, or exported function"},
	{"SG3502", "redefinition", false, "alias shadows a command"},
	{"SG3503", "redefinition", false, "alias expansion enabled, builtins loaded or disabled, hash -p"},
	{"SG3504", "redefinition", false, "command_not_found_handle defined"},

	{"SG3601", "perms", true, "recursive chmod/chown of the system or home"},
	{"SG3602", "perms", false, "setuid or setgid bit"},

	{"SG3701", "user", false, "matches a user deny rule"},
	{"SG3702", "user", false, "matches a user ask rule"},
	{"SG3703", "user", false, "matches a custom deny pattern"},
	{"SG3704", "user", false, "blocked command"},
	{"SG3705", "user", false, "command not in allowed_commands"},

	{"SG9001", "request", false, "request to run outside the sandbox, which the configuration does not allow (deny)"},
	{"SG9002", "request", false, "request to run outside the sandbox (always ask)"},
}
