module github.com/shellguard/shellguard

go 1.26.0

require (
	github.com/landlock-lsm/go-landlock v0.11.0
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.49.0
)

require kernel.org/pub/linux/libs/security/libcap/psx v1.2.77 // indirect
