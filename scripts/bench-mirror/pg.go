package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgBin is where Debian's postgresql-15 package puts the server binaries.
const pgBin = "/usr/lib/postgresql/15/bin"

// pgSettings are the server settings of the benchmark's PostgreSQL: memory sized for
// this machine (peppolgate's serving budget is 1 GiB, so shared_buffers gets the same),
// durability off for the bulk load (the mirror's import does not sync row by row
// either), JIT off (it costs milliseconds on the big LIKE queries), a custom plan for
// every query (the LIKE patterns are parameters), no autovacuum during the queries.
var pgSettings = []string{
	"shared_buffers=1GB", "work_mem=64MB", "maintenance_work_mem=1GB", "effective_cache_size=4GB",
	"fsync=off", "synchronous_commit=off", "full_page_writes=off",
	"wal_level=minimal", "max_wal_senders=0", "max_wal_size=8GB", "checkpoint_timeout=30min",
	"jit=off", "plan_cache_mode=force_custom_plan", "autovacuum=off",
}

// pgServer is a PostgreSQL server the benchmark started on loopback.
type pgServer struct {
	proc    *child
	port    int
	version string
}

// ensurePG installs postgresql-15 with apt-get when its binaries are missing.
func ensurePG(ctx context.Context, logw io.Writer) error {
	if _, err := os.Stat(filepath.Join(pgBin, "initdb")); err == nil {
		return nil
	}
	fmt.Fprintln(logw, "bench-mirror: installing postgresql-15 (apt-get)")
	args := []string{"apt-get", "install", "-y", "postgresql-15", "postgresql-contrib-15"}
	if os.Geteuid() != 0 {
		args = append([]string{"sudo", "-n"}, args...)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logw, logw
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("installing postgresql-15 (%s): %w", strings.Join(args, " "), err)
	}
	if _, err := os.Stat(filepath.Join(pgBin, "initdb")); err != nil {
		return fmt.Errorf("postgresql-15 installed but %s/initdb is missing: %w", pgBin, err)
	}
	return nil
}

// pgCredential is the user PostgreSQL runs as: "postgres" when the benchmark runs as
// root (the server refuses root), nil (the benchmark's own user) otherwise.
func pgCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the user postgres: %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user postgres: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// chownTree gives dir and everything in it to cred's user.
func chownTree(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
}

// startPG creates a fresh cluster in dir (removing an old one) and starts it on
// 127.0.0.1 at a free port, logging to dir/../pg.log.
func startPG(ctx context.Context, cs *children, dir string, logw io.Writer) (*pgServer, error) {
	if err := ensurePG(ctx, logw); err != nil {
		return nil, err
	}
	cred, err := pgCredential()
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := chownTree(dir, cred); err != nil {
		return nil, fmt.Errorf("giving %s to postgres: %w", dir, err)
	}
	logPath := filepath.Join(filepath.Dir(dir), "pg.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	ictx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	initdb := exec.CommandContext(ictx, filepath.Join(pgBin, "initdb"), "-D", dir, "-U", "bench",
		"--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Stdout, initdb.Stderr = logf, logf
	if err := initdb.Run(); err != nil {
		return nil, fmt.Errorf("initdb %s: %w (log in %s)", dir, err, logPath)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"-D", dir, "-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="}
	for _, s := range pgSettings {
		args = append(args, "-c", s)
	}
	cmd := exec.Command(filepath.Join(pgBin, "postgres"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	pg := &pgServer{port: port}
	// The log file stays open in the child after this function closes our handle.
	if pg.proc, err = cs.start("postgres", cmd, logf); err != nil {
		return nil, err
	}
	pg.proc.stopSig = syscall.SIGINT
	deadline := time.Now().Add(2 * time.Minute)
	for {
		conn, err := pg.connect(ctx)
		if err == nil {
			err = conn.QueryRow(ctx, "SHOW server_version").Scan(&pg.version)
			conn.Close(ctx)
			if err != nil {
				return nil, err
			}
			return pg, nil
		}
		if pg.proc.exited() {
			return nil, fmt.Errorf("postgres exited at start: %v (log in %s)", pg.proc.err, logPath)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("postgres not accepting connections after 2 minutes: %w (log in %s)", err, logPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// connect opens a connection to the server.
func (pg *pgServer) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return pgx.Connect(ctx, fmt.Sprintf("postgres://bench@127.0.0.1:%d/postgres?sslmode=disable", pg.port))
}

// pgLoad is what loading the cards into PostgreSQL took.
type pgLoad struct {
	copyTime, indexTime, total time.Duration
	bytes                      int64
	cards, ids                 int64
	// dupes are the cards dropped because an earlier card had their participant id.
	dupes int64
}

// load creates the tables, copies the cards of src in, builds the indexes and
// analyses the tables.
func (pg *pgServer) load(ctx context.Context, src *source, logw io.Writer) (pgLoad, error) {
	var res pgLoad
	conns := make([]*pgx.Conn, 2)
	for i := range conns {
		c, err := pg.connect(ctx)
		if err != nil {
			return res, err
		}
		defer c.Close(context.WithoutCancel(ctx))
		conns[i] = c
	}
	if _, err := conns[0].Exec(ctx, "CREATE EXTENSION pg_trgm"); err != nil {
		return res, fmt.Errorf("CREATE EXTENSION pg_trgm: %w", err)
	}
	start := time.Now()
	// One generator feeds both COPYs in batches; each table is created in the
	// transaction that fills it, so that with wal_level=minimal the load skips the WAL.
	const batch = 2000
	cardsCh, idsCh := make(chan []card, 8), make(chan []card, 8)
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	genErr := make(chan error, 1)
	go func() {
		defer close(cardsCh)
		defer close(idsCh)
		buf := make([]card, 0, batch)
		send := func() error {
			for _, ch := range []chan []card{cardsCh, idsCh} {
				select {
				case ch <- buf:
				case <-gctx.Done():
					return context.Cause(gctx)
				}
			}
			buf = make([]card, 0, batch)
			return nil
		}
		err := src.each(func(i int, c card) error {
			buf = append(buf, c)
			if len(buf) == batch {
				return send()
			}
			return nil
		})
		if err == nil && len(buf) > 0 {
			err = send()
		}
		genErr <- err
	}()
	type copyRes struct {
		n   int64
		err error
	}
	copyOne := func(conn *pgx.Conn, ddl, table string, cols []string, ch chan []card, rows func(c card) [][]any) copyRes {
		tx, err := conn.Begin(gctx)
		if err != nil {
			return copyRes{err: err}
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		if _, err := tx.Exec(gctx, ddl); err != nil {
			return copyRes{err: fmt.Errorf("%s: %w", ddl, err)}
		}
		n, err := tx.CopyFrom(gctx, pgx.Identifier{table}, cols, &batchSource{ch: ch, rows: rows})
		if err != nil {
			return copyRes{err: fmt.Errorf("COPY %s: %w", table, err)}
		}
		return copyRes{n: n, err: tx.Commit(gctx)}
	}
	idsDone := make(chan copyRes, 1)
	go func() {
		r := copyOne(conns[1], "CREATE TABLE ids (key text NOT NULL, pid text NOT NULL)", "ids",
			[]string{"key", "pid"}, idsCh, func(c card) [][]any {
				var out [][]any
				seen := map[string]bool{}
				for _, id := range c.ids {
					if k := idKey(id); k != "" && !seen[k] {
						seen[k] = true
						out = append(out, []any{k, c.pid})
					}
				}
				return out
			})
		if r.err != nil {
			cancel(r.err)
		}
		idsDone <- r
	}()
	cr := copyOne(conns[0], "CREATE TABLE cards (pid text NOT NULL, name text NOT NULL, name_folded text NOT NULL, country text NOT NULL)",
		"cards", []string{"pid", "name", "name_folded", "country"}, cardsCh, func(c card) [][]any {
			name := ""
			if len(c.names) > 0 {
				name = c.names[0]
			}
			return [][]any{{c.pid, name, fold(strings.Join(c.names, " / ")), c.country}}
		})
	if cr.err != nil {
		cancel(cr.err)
	}
	ir := <-idsDone
	gerr := <-genErr
	if err := errors.Join(cr.err, ir.err); err != nil {
		return res, err
	}
	if gerr != nil {
		return res, fmt.Errorf("generating the cards: %w", gerr)
	}
	res.cards, res.ids = cr.n, ir.n
	res.copyTime = time.Since(start)
	fmt.Fprintf(logw, "bench-mirror: PostgreSQL: copied %d cards and %d identifiers in %v; building indexes\n", res.cards, res.ids, res.copyTime.Round(time.Millisecond))

	istart := time.Now()
	errc := make(chan error, 1)
	go func() {
		_, err := conns[1].Exec(ctx, "CREATE INDEX cards_name_trgm ON cards USING gin (name_folded gin_trgm_ops)")
		if err != nil {
			err = fmt.Errorf("trigram index: %w", err)
		}
		errc <- err
	}()
	// A few per million generated participant ids repeat; like an import, the later
	// card wins.
	if _, err := conns[0].Exec(ctx, "ALTER TABLE cards ADD PRIMARY KEY (pid)"); err != nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
			return res, fmt.Errorf("primary key on cards.pid: %w", err)
		}
		tag, err := conns[0].Exec(ctx, `DELETE FROM cards WHERE ctid IN (SELECT ctid FROM (
			SELECT ctid, row_number() OVER (PARTITION BY pid ORDER BY ctid DESC) AS n FROM cards) d WHERE n > 1)`)
		if err != nil {
			return res, fmt.Errorf("removing repeated participant ids: %w", err)
		}
		res.dupes = tag.RowsAffected()
		fmt.Fprintf(logw, "bench-mirror: PostgreSQL: removed %d cards whose participant id repeats\n", res.dupes)
		if _, err := conns[0].Exec(ctx, "ALTER TABLE cards ADD PRIMARY KEY (pid)"); err != nil {
			return res, fmt.Errorf("primary key on cards.pid: %w", err)
		}
	}
	if _, err := conns[0].Exec(ctx, "CREATE INDEX ids_key ON ids (key)"); err != nil {
		return res, fmt.Errorf("index on ids.key: %w", err)
	}
	if err := <-errc; err != nil {
		return res, err
	}
	if _, err := conns[0].Exec(ctx, "VACUUM ANALYZE cards"); err != nil {
		return res, err
	}
	if _, err := conns[0].Exec(ctx, "VACUUM ANALYZE ids"); err != nil {
		return res, err
	}
	res.indexTime = time.Since(istart)
	res.total = time.Since(start)
	err := conns[0].QueryRow(ctx, "SELECT pg_total_relation_size('cards') + pg_total_relation_size('ids')").Scan(&res.bytes)
	return res, err
}

// batchSource is a pgx.CopyFromSource over batches of cards, each card giving rows.
type batchSource struct {
	ch   chan []card
	rows func(c card) [][]any
	pend []card  // cards of the current batch not yet turned into rows
	cur  [][]any // rows of the current card not yet returned
	row  []any
}

// Next advances to the next row; false at the end of the cards.
func (b *batchSource) Next() bool {
	for len(b.cur) == 0 {
		for len(b.pend) == 0 {
			p, ok := <-b.ch
			if !ok {
				return false
			}
			b.pend = p
		}
		b.cur, b.pend = b.rows(b.pend[0]), b.pend[1:]
	}
	b.row, b.cur = b.cur[0], b.cur[1:]
	return true
}

// Values are the current row.
func (b *batchSource) Values() ([]any, error) { return b.row, nil }

// Err is always nil: the cards cannot fail here.
func (b *batchSource) Err() error { return nil }

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
