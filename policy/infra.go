package policy

import (
	"strings"

	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/lazyre"
)

// Infrastructure: clusters, terraform, cloud CLIs and databases.

// dryRun reports a rehearsal as the program's grammar reads it (the
// last --dry-run wins, --dry-run=none and --no-dry-run are real runs).
func (k *cmdCheck) dryRun() bool { return grammar.DryRun(k.c) }

func (k *cmdCheck) kubectl() {
	if k.dryRun() {
		return
	}
	sub, rest := k.sub()
	switch sub {
	case "delete", "drain", "replace", "taint", "cordon":
		if sub == "replace" && !hasArgA(rest, "--force") {
			return
		}
		k.emit(sg3201deny, "kubectl "+sub+" changes or removes cluster resources")
	case "scale":
		if hasArgA(rest, "--replicas=0") {
			k.emit(sg3201ask, "scales a workload to zero")
		}
	}
}

func (k *cmdCheck) terraform() {
	sub, rest := k.sub()
	switch {
	case sub == "destroy":
		k.emit(sg3202deny, "terraform destroy removes infrastructure")
	case sub == "workspace" && len(rest) > 0 && rest[0].Value == "delete":
		k.emit(sg3202deny, "terraform workspace delete removes a workspace's state")
	case sub == "apply" && (hasArgA(rest, "-destroy", "--destroy")):
		k.emit(sg3202deny, "terraform apply -destroy removes infrastructure")
	case sub == "apply" && hasArgA(rest, "-auto-approve", "--auto-approve"):
		k.emit(sg3202ask, "terraform apply without review")
	case sub == "state" && len(rest) > 0 && (rest[0].Value == "rm" || rest[0].Value == "push"):
		k.emit(sg3202ask, "terraform state "+rest[0].Value+" edits infrastructure state")
	}
}

func (k *cmdCheck) helm() {
	if k.dryRun() {
		return
	}
	sub, _ := k.sub()
	if sub == "uninstall" || sub == "delete" || sub == "del" {
		k.emit(sg3207, "helm "+sub+" removes a release")
	}
}

var reCloudDelete = lazyre.New(`^(delete|terminate|remove|deregister|destroy|purge|rb)(-|$)`)

func (k *cmdCheck) aws() {
	if k.dryRun() {
		return
	}
	sub, rest := k.sub()
	if sub == "s3" && len(rest) > 0 {
		op := rest[0].Value
		if op == "rb" || op == "rm" && hasArgA(rest, "--recursive") || op == "sync" && hasArgA(rest, "--delete") {
			k.emit(sg3205deny, "aws s3 "+op+" deletes cloud data")
		}
		return
	}
	for _, a := range rest {
		if reCloudDelete.MatchString(a.Value) {
			k.emit(sg3205deny, "aws "+sub+" "+a.Value+" deletes cloud resources")
			return
		}
	}
}

func (k *cmdCheck) gsutil() {
	if k.dryRun() {
		return
	}
	if sub, rest := k.sub(); sub == "rb" || sub == "rm" && (hasArgA(rest, "-r") || hasArgA(rest, "-R")) {
		k.emit(sg3205deny, "gsutil "+sub+" deletes cloud data")
	}
}

func (k *cmdCheck) cloud() {
	if k.dryRun() {
		return
	}
	for _, a := range k.args {
		if a.Value == "delete" || a.Value == "destroy" || a.Value == "purge" {
			k.emit(sg3205deny, k.said()+" "+a.Value+" deletes cloud resources")
			return
		}
	}
}

var reDestructiveSQL = lazyre.New(`(?i)\b(drop\s+(table|database|schema|index|view|user|role)|truncate\b|dropDatabase|\.drop\(\)|flushall|alter\s+table\s+\S+\s+drop)|(deleteMany|remove|delete_many)\(\s*\{\s*\}\s*\)`)

var reDeleteFrom = lazyre.New(`(?i)\bdelete\s+from\b`)

var reUpdateSet = lazyre.New(`(?i)\bupdate\s+\S+\s+set\b`)

var reWhere = lazyre.New(`(?i)\bwhere\b`)

func (k *cmdCheck) sql() {
	if k.c.StdinPipe {
		for _, u := range k.e.upstream(k.c) {
			// the words of echo and printf, or of a program that prints
			// its input as it is (+verbatim, cat)
			if n := u.Name(); n == "echo" || n == "printf" || verbatim(n) {
				for _, a := range u.Argv[1:] {
					if reDestructiveSQL.MatchString(a) || (reDeleteFrom.MatchString(a) || reUpdateSet.MatchString(a)) && !reWhere.MatchString(a) {
						k.emit(sg3203, "destructive SQL statement fed on stdin")
						return
					}
				}
			}
		}
	}
	for _, r := range k.c.Redirects {
		if r.Op == "<<<" || r.Op == "<<" || r.Op == "<<-" {
			if reDestructiveSQL.MatchString(r.Target.Value) {
				k.emitAt(sg3203, r.Span, "destructive SQL statement in a here-document")
				return
			}
		}
	}
	for _, a := range k.args {
		q := a.Value
		if reDestructiveSQL.MatchString(q) {
			k.emitAt(sg3203, a.Span, "destructive SQL statement")
			return
		}
		if (reDeleteFrom.MatchString(q) || reUpdateSet.MatchString(q)) && !reWhere.MatchString(q) {
			k.emitAt(sg3203, a.Span, "DELETE or UPDATE without WHERE changes every row")
			return
		}
	}
}

func (k *cmdCheck) redis() {
	for i, a := range k.args {
		switch strings.ToUpper(a.Value) {
		case "FLUSHALL", "FLUSHDB", "SHUTDOWN":
			k.emitAt(sg3204deny, a.Span, "redis "+strings.ToUpper(a.Value)+" destroys data or the server")
			return
		case "CONFIG":
			if i+1 < len(k.args) && strings.EqualFold(k.args[i+1].Value, "SET") {
				k.emitAt(sg3204ask, a.Span, "redis CONFIG SET changes the server")
			}
		}
	}
}

// infraDelete judges a cloud CLI (a +cloud grammar line) by its words.
func (k *cmdCheck) infraDelete() {
	if k.prog.Line == nil || !k.prog.Line.Cloud {
		return
	}
	for _, a := range k.args {
		v := strings.ToLower(a.Value)
		if v == "destroy" || v == "delete" || v == "remove" || v == "rm" || strings.HasSuffix(v, ":destroy") || strings.HasSuffix(v, ":delete") || strings.HasSuffix(v, ":remove") || strings.HasSuffix(v, ":reset") {
			k.emit(sg3205deny, k.said()+" "+a.Value+" deletes cloud resources")
			return
		}
	}
}

func (k *cmdCheck) dropdb() {
	k.emit(sg3203, quote(k.said())+" deletes a database or role")
}

func (k *cmdCheck) mysqladmin() {
	if k.has("drop") {
		k.emit(sg3203, "mysqladmin drop deletes a database")
	}
}

func (k *cmdCheck) etcdctl() {
	if k.has("del", "delete") {
		k.emit(sg3203, "etcdctl del deletes keys")
	}
}
