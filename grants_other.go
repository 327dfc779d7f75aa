//go:build !unix

package shellguard

const nofollow = 0
