//go:build !(linux && (amd64 || arm64))

package export

// exchange is not available here; swapDirs falls back to two renames.
func exchange(a, b string) error { return errNoExchange }
