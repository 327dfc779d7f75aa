package policy

import "strings"

// Disks: formatting, partitioning and raw writes to block devices.

func (k *cmdCheck) dd() {
	for _, a := range k.args {
		if strings.HasPrefix(a.Value, "of=") {
			k.e.writeTarget(k.i, a.Span, strings.TrimPrefix(a.Value, "of="), a.Dynamic, k.c.Cwd, "dd writes")
		}
	}
}

func (k *cmdCheck) disk() {
	dev := false
	for _, a := range k.operands() {
		if strings.HasPrefix(a.Value, "/dev/") {
			dev = true
		}
	}
	if dev {
		k.emit(sg2101floor, quote(k.said())+" formats, partitions or erases a disk")
	} else if !k.has("-l", "--list", "-h", "--help", "--version", "-V", "list", "status") {
		k.emit(sg2101ask, quote(k.said())+" manages disks or file systems")
	}
}

// hdparm changes a disk only with its erase, trim and firmware options.
func (k *cmdCheck) hdparm() {
	if k.has("--security-erase", "--security-erase-enhanced", "--trim-sector-ranges", "--fwdownload") {
		k.disk()
	}
}

// erase: wipefs, blkdiscard erase whatever they are given.
func (k *cmdCheck) erase() {
	k.emit(sg2101floor, quote(k.said())+" formats, partitions or erases a disk")
}
