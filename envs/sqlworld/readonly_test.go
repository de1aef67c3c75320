package sqlworld

import (
	"context"
	"testing"
)

// The connections themselves refuse writes, whatever the statement check
// lets through: this runs statements on the pool directly, bypassing it.
func TestConnectionsAreReadOnly(t *testing.T) {
	e, err := New(Config{DataDir: "testdata/iso-codes", TrainSize: 3, ValSize: 1, TestSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, q := range []string{
		"DELETE FROM countries",
		"INSERT INTO currencies VALUES ('XXX', 1, 'x')",
		"DROP TABLE languages",
		"CREATE TEMP TABLE t(x)",
		"ATTACH DATABASE ':memory:' AS x",
		"PRAGMA writable_schema = ON",
		"PRAGMA query_only = 0",
		"BEGIN IMMEDIATE",
		"SELECT 1; DELETE FROM countries",
		"WITH x AS (SELECT 1) DELETE FROM countries",
		"SELECT load_extension('x')",
	} {
		conn, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, q); err == nil {
			t.Errorf("%q ran on a read-only connection", q)
		}
		_ = conn.Close()
	}
	res, err := e.query(ctx, "SELECT count(*) FROM countries", 1)
	if err != nil || res.rows[0][0] != int64(5) {
		t.Errorf("countries after the attempts: %v, %v", res, err)
	}
}
