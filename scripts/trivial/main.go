// Command trivial serves a constant JSON body on every path: the ceiling of net/http on
// this machine, measured next to peppolgate by scripts/load.sh.
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	flag.Parse()
	body := []byte(`{"status":"ok"}`)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})))
}
