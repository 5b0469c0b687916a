package rewardserver

import (
	"sync"

	"github.com/sqlrl/sqlrl/reward"
)

// StackConfig returns a server Config wired to st: its reward, its
// scorer's cache counters, and a database check that turns a label naming
// a database the engine will not open into a 422 before anything runs.
func StackConfig(st *reward.Stack, name string) Config {
	var c Config
	c.UseStack(st, name)
	return c
}

// dbExists reports whether st's engine will open db (reward.Stack.Check:
// for SQLite, a whole database file inside the root, links resolved).
// Found databases are remembered, so a request's labels cost a map lookup;
// missing ones are looked up again (they may be added).
func dbExists(st *reward.Stack) func(db string) bool {
	var known sync.Map // db -> true
	return func(db string) bool {
		if _, ok := known.Load(db); ok {
			return true
		}
		if !dbName.MatchString(db) || st.Check(db) != nil {
			return false
		}
		known.Store(db, true)
		return true
	}
}
