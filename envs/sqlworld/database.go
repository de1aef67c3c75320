package sqlworld

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DefaultDataDir is where Debian's iso-codes package installs its JSON
// files.
const DefaultDataDir = "/usr/share/iso-codes/json"

// ErrNoData reports a data directory without the iso-codes JSON files; its
// message names the Debian package that provides them.
var ErrNoData = errors.New("sqlworld: iso-codes JSON files not found (install the Debian package iso-codes)")

// Bounds on the data files: a file larger than maxDataFileBytes is refused.
const maxDataFileBytes = 32 << 20

// The JSON records of the iso-codes files.
type (
	isoCountry struct {
		Alpha2       string `json:"alpha_2"`
		Alpha3       string `json:"alpha_3"`
		Numeric      string `json:"numeric"`
		Name         string `json:"name"`
		OfficialName string `json:"official_name"`
		CommonName   string `json:"common_name"`
	}
	isoSubdivision struct {
		Code   string `json:"code"`
		Name   string `json:"name"`
		Type   string `json:"type"`
		Parent string `json:"parent"`
	}
	isoCurrency struct {
		Alpha3  string `json:"alpha_3"`
		Numeric string `json:"numeric"`
		Name    string `json:"name"`
	}
	isoLanguage struct {
		Alpha3 string `json:"alpha_3"`
		Alpha2 string `json:"alpha_2"`
		Name   string `json:"name"`
		Scope  string `json:"scope"`
		Type   string `json:"type"`
	}
)

// dataset is the parsed content of the iso-codes files, kept for task
// generation.
type dataset struct {
	countries    []isoCountry
	subdivisions []isoSubdivision
	currencies   []isoCurrency
	languages    []isoLanguage
}

// readData reads the four iso-codes files of dir.
func readData(dir string) (*dataset, error) {
	if dir == "" {
		dir = DefaultDataDir
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: no directory %s", ErrNoData, dir)
	}
	d := &dataset{}
	if err := readFile(dir, "iso_3166-1.json", "3166-1", &d.countries); err != nil {
		return nil, err
	}
	if err := readFile(dir, "iso_3166-2.json", "3166-2", &d.subdivisions); err != nil {
		return nil, err
	}
	if err := readFile(dir, "iso_4217.json", "4217", &d.currencies); err != nil {
		return nil, err
	}
	if err := readFile(dir, "iso_639-3.json", "639-3", &d.languages); err != nil {
		return nil, err
	}
	return d, nil
}

func readFile[T any](dir, name, key string, out *[]T) error {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: missing %s", ErrNoData, path)
	}
	if err != nil {
		return fmt.Errorf("sqlworld: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("sqlworld: %w", err)
	}
	if st.Size() > maxDataFileBytes {
		return fmt.Errorf("sqlworld: %s is %d bytes, more than %d", path, st.Size(), maxDataFileBytes)
	}
	var doc map[string][]T
	if err := json.NewDecoder(f).Decode(&doc); err != nil {
		return fmt.Errorf("sqlworld: decode %s: %w", path, err)
	}
	recs, ok := doc[key]
	if !ok || len(recs) == 0 {
		return fmt.Errorf("sqlworld: %s has no %q records", path, key)
	}
	*out = recs
	return nil
}

// schemaSQL creates the tables. Numeric codes are INTEGER so that they
// compare as numbers (ISO writes them zero-padded: Norway is "578", Angola
// "024", stored 24).
const schemaSQL = `
CREATE TABLE countries (
  alpha_2       TEXT PRIMARY KEY,
  alpha_3       TEXT NOT NULL UNIQUE,
  numeric_code  INTEGER NOT NULL,
  name          TEXT NOT NULL,
  official_name TEXT,
  common_name   TEXT
);
CREATE TABLE subdivisions (
  code          TEXT PRIMARY KEY,
  country_code  TEXT NOT NULL REFERENCES countries(alpha_2),
  name          TEXT NOT NULL,
  type          TEXT NOT NULL,
  parent_code   TEXT REFERENCES subdivisions(code)
);
CREATE INDEX subdivisions_country ON subdivisions(country_code);
CREATE INDEX subdivisions_parent ON subdivisions(parent_code);
CREATE TABLE currencies (
  alpha_3       TEXT PRIMARY KEY,
  numeric_code  INTEGER NOT NULL,
  name          TEXT NOT NULL
);
CREATE TABLE languages (
  alpha_3       TEXT PRIMARY KEY,
  alpha_2       TEXT,
  name          TEXT NOT NULL,
  scope         TEXT NOT NULL,
  type          TEXT NOT NULL
);
`

// connector opens connections of a constructed driver, so that the hooks
// of one Env reach only its own connections.
type connector struct {
	d   *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// buildImage builds the database in memory from d and returns its
// serialised image.
func buildImage(ctx context.Context, d *dataset) (img []byte, err error) {
	db := sql.OpenDB(connector{d: &sqlite.Driver{}, dsn: ":memory:"})
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlworld: build: %w", err)
	}
	defer conn.Close()
	if err := fill(ctx, conn, d); err != nil {
		return nil, fmt.Errorf("sqlworld: build: %w", err)
	}
	err = conn.Raw(func(dc any) error {
		s, ok := dc.(interface{ Serialize() ([]byte, error) })
		if !ok {
			return fmt.Errorf("driver connection %T cannot serialise", dc)
		}
		img, err = s.Serialize()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlworld: serialise: %w", err)
	}
	return img, nil
}

func fill(ctx context.Context, conn *sql.Conn, d *dataset) error {
	if _, err := conn.ExecContext(ctx, schemaSQL); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insert := func(q string, rows [][]any) error {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range rows {
			if _, err := st.ExecContext(ctx, r...); err != nil {
				return fmt.Errorf("%s %v: %w", q, r, err)
			}
		}
		return nil
	}
	var rows [][]any
	for _, c := range d.countries {
		n, err := strconv.Atoi(c.Numeric)
		if err != nil {
			return fmt.Errorf("country %s: numeric %q", c.Alpha2, c.Numeric)
		}
		rows = append(rows, []any{c.Alpha2, c.Alpha3, n, c.Name, nullable(c.OfficialName), nullable(c.CommonName)})
	}
	if err := insert(`INSERT INTO countries VALUES (?, ?, ?, ?, ?, ?)`, rows); err != nil {
		return err
	}
	rows = nil
	for _, s := range d.subdivisions {
		cc, _, ok := strings.Cut(s.Code, "-")
		if !ok {
			return fmt.Errorf("subdivision code %q has no country part", s.Code)
		}
		var parent any
		if s.Parent != "" {
			parent = parentCode(cc, s.Parent)
		}
		rows = append(rows, []any{s.Code, cc, s.Name, s.Type, parent})
	}
	if err := insert(`INSERT INTO subdivisions VALUES (?, ?, ?, ?, ?)`, rows); err != nil {
		return err
	}
	rows = nil
	for _, c := range d.currencies {
		n, err := strconv.Atoi(c.Numeric)
		if err != nil {
			return fmt.Errorf("currency %s: numeric %q", c.Alpha3, c.Numeric)
		}
		rows = append(rows, []any{c.Alpha3, n, c.Name})
	}
	if err := insert(`INSERT INTO currencies VALUES (?, ?, ?)`, rows); err != nil {
		return err
	}
	rows = nil
	for _, l := range d.languages {
		rows = append(rows, []any{l.Alpha3, nullable(l.Alpha2), l.Name, scopeName(l.Scope), typeName(l.Type)})
	}
	if err := insert(`INSERT INTO languages VALUES (?, ?, ?, ?, ?)`, rows); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	var bad int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_foreign_key_check`).Scan(&bad); err != nil {
		return err
	}
	if bad != 0 { // checked once at the end: parents may come after their children
		return fmt.Errorf("%d rows break a foreign key", bad)
	}
	return nil
}

// parentCode is the full code of a subdivision's parent: iso-codes writes
// most parents without the country part ("NX" for AZ-NX) and some with it
// ("GB-SCT").
func parentCode(country, parent string) string {
	if strings.HasPrefix(parent, country+"-") {
		return parent
	}
	return country + "-" + parent
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// scopeName and typeName spell out ISO 639-3's one-letter codes.
func scopeName(s string) string {
	switch s {
	case "I":
		return "individual"
	case "M":
		return "macrolanguage"
	case "S":
		return "special"
	}
	return s
}

func typeName(s string) string {
	switch s {
	case "L":
		return "living"
	case "E":
		return "extinct"
	case "A":
		return "ancient"
	case "H":
		return "historical"
	case "C":
		return "constructed"
	case "S":
		return "special"
	}
	return s
}

// Per-connection SQLite limits of the read-only pool.
const (
	// maxValueBytes bounds any string or blob a query can make
	// (SQLITE_LIMIT_LENGTH), so randomblob(1e9) fails instead of
	// allocating a gigabyte.
	maxValueBytes = 1 << 20
)

// openReadOnly opens a pool of read-only connections, each holding its own
// in-memory copy of img. Every connection runs with PRAGMA query_only and
// an authorizer that allows reading and nothing else (no writes, PRAGMA,
// ATTACH, transactions or schema changes), and with no attached databases
// and bounded value sizes.
func openReadOnly(img []byte, maxConns int) *sql.DB {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		ds, ok := c.(interface{ Deserialize([]byte) error })
		if !ok {
			return fmt.Errorf("driver connection %T cannot deserialise", c)
		}
		if err := ds.Deserialize(img); err != nil {
			return err
		}
		if _, err := c.ExecContext(context.Background(), "PRAGMA query_only = 1", nil); err != nil {
			return err
		}
		ar, ok := c.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("driver connection %T has no authorizer", c)
		}
		return ar.RegisterAuthorizer(authorize)
	})
	db := sql.OpenDB(connector{d: d, dsn: ":memory:"})
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	return db
}

// authorize is the read-only pool's SQLite authorizer: it allows SELECT,
// reading columns, recursive CTEs and functions other than the few that
// reach outside the database, and denies every other action.
func authorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		switch strings.ToLower(arg2) {
		case "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "sqlite_offset":
			return sqlite.AuthorizerDeny
		}
		return sqlite.AuthorizerOK
	}
	return sqlite.AuthorizerDeny
}

// setLimits applies the per-connection limits; they are cheap to set again.
func setLimits(conn *sql.Conn, maxSQL int) error {
	for _, l := range [][2]int{
		{sqlite3.SQLITE_LIMIT_LENGTH, maxValueBytes},
		{sqlite3.SQLITE_LIMIT_SQL_LENGTH, maxSQL},
		{sqlite3.SQLITE_LIMIT_ATTACHED, 0},
	} {
		if _, err := sqlite.Limit(conn, l[0], l[1]); err != nil {
			return err
		}
	}
	return nil
}
