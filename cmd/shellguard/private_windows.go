package main

import "io/fs"

// checkPrivate: Windows has no mode bits; its ACLs are not checked.
func checkPrivate(fs.FileInfo) error { return nil }
