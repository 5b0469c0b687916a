package export

import "syscall"

const sysRenameat2 = syscall.SYS_RENAMEAT2
