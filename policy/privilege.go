package policy

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

// Privilege: sudo and friends, containers with host access, privilege escalation reconnaissance.

func (k *cmdCheck) priv() {
	k.emit(sg2201, quote(k.said())+" changes user or privileges")
}

// namespace: chroot, nsenter.
func (k *cmdCheck) namespace() {
	k.emit(sg2204, quote(k.said())+" changes the root or namespaces of a process")
}

// compose: docker-compose, whose subcommands are docker compose's.
func (k *cmdCheck) compose() {
	if sub, _ := k.sub(); sub == "down" {
		if k.has("-v") || k.has("--volumes") {
			k.emit(sg3206, "docker-compose down -v deletes volumes")
		}
		return
	}
	k.docker()
}

func (k *cmdCheck) docker() {
	sub, rest := k.sub()
	switch sub {
	case "run", "create":
		for i, a := range rest {
			v := a.Value
			switch {
			case v == "--privileged" || strings.HasPrefix(v, "--pid=host") || v == "--pid" && i+1 < len(rest) && rest[i+1].Value == "host" ||
				strings.HasPrefix(v, "--cap-add") && (strings.Contains(v, "SYS_ADMIN") || strings.Contains(v, "ALL") || i+1 < len(rest) && (rest[i+1].Value == "SYS_ADMIN" || rest[i+1].Value == "ALL")) ||
				strings.HasPrefix(v, "--userns=host") || strings.HasPrefix(v, "--security-opt") && i+1 < len(rest) && strings.Contains(rest[i+1].Value, "unconfined"):
				k.emitAt(sg2203deny, a.Span, "container gets host privileges ("+v+")")
			case (v == "-v" || v == "--volume" || v == "--mount") && i+1 < len(rest):
				k.mountSrc(rest[i+1])
			case strings.HasPrefix(v, "--volume=") || strings.HasPrefix(v, "--mount="):
				a2 := a
				a2.Value = v[strings.IndexByte(v, '=')+1:]
				k.mountSrc(a2)
			}
			if !strings.HasPrefix(v, "-") && i > 0 && !strings.HasPrefix(rest[i-1].Value, "-") {
				break
			}
		}
	case "compose":
		for i, a := range rest {
			if a.Value == "down" && (hasArgA(rest[i:], "-v") || hasArgA(rest[i:], "--volumes")) {
				k.emit(sg3206, "docker compose down -v deletes volumes")
			}
		}
	case "system", "volume", "image", "container", "network", "builder", "buildx":
		if len(rest) > 0 {
			op := rest[0].Value
			if op == "prune" && (sub == "system" || sub == "volume" || hasArgA(rest, "-a", "--all")) || op == "rm" && sub == "volume" {
				k.emit(sg3206, "docker "+sub+" "+op+" deletes data irreversibly")
			}
		}
	}
}

func (k *cmdCheck) mountSrc(a analyze.Arg) {
	v := a.Value
	if strings.HasPrefix(v, "type=") || strings.Contains(v, "source=") || strings.Contains(v, "src=") {
		for _, part := range strings.Split(v, ",") {
			if strings.HasPrefix(part, "source=") || strings.HasPrefix(part, "src=") {
				v = part[strings.IndexByte(part, '=')+1:] + ":"
			}
		}
	}
	src, _, ok := strings.Cut(v, ":")
	if !ok || !(strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, ".")) {
		return
	}
	p := k.e.abs(src, k.c.Cwd)
	switch {
	case p == "":
	case k.e.inWorkspace(p):
	case p == "/" || p == "/var/run/docker.sock" || p == "/run/docker.sock" || k.e.criticalDir(p) || p == k.e.home || k.e.credentialPath(p) != "":
		k.emitAt(sg2203deny, a.Span, "mounts the host path "+quote(src)+" into a container")
	case k.e.inWorkspace(p) || k.e.inRoots(p):
	default:
		k.emitAt(sg2203ask, a.Span, "mounts "+quote(src)+" from outside the workspace into a container")
	}
}
