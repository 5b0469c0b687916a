package export

const sysRenameat2 = 316 // not in package syscall for amd64
