module github.com/shellguard/shellguard

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.49.0
)

require github.com/creack/pty v1.1.24
