package rewardserver

import (
	"os"
	"sync"

	"github.com/sqlrl/sqlrl/reward"
)

// StackConfig returns a server Config wired to st: its reward, its
// scorer's cache counters, and a database check that turns a label naming
// a database the engine does not have into a 422 before anything runs.
func StackConfig(st *reward.Stack, name string) Config {
	return Config{Reward: st.Reward, Name: name, DBExists: dbExists(st), CacheStats: st.Scorer.CacheStats}
}

// dbExists reports whether the stack's engine has db's file. Found
// databases are remembered; missing ones are looked up again (they may be
// added). An engine that cannot say accepts every name.
func dbExists(st *reward.Stack) func(db string) bool {
	pather, ok := st.Engine.(interface{ Path(db string) string })
	if !ok {
		return nil
	}
	var known sync.Map // db -> true
	return func(db string) bool {
		if _, ok := known.Load(db); ok {
			return true
		}
		if !dbName.MatchString(db) {
			return false
		}
		st, err := os.Stat(pather.Path(db))
		if err != nil || st.IsDir() {
			return false
		}
		known.Store(db, true)
		return true
	}
}
