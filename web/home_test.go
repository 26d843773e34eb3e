package web

import "testing"

func TestRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Destination
	}{
		{"0208:0677424046", ToParticipant},
		{" iso6523-actorid-upis::0192:923609016 ", ToParticipant},
		{"0208:", ToSearch},
		{"BE0677424046", ToSearch},
		{"BE 0677.424.046", ToSearch},
		{"vandelanotte", ToSearch},
		{"Acme Holding NV", ToSearch},
		{"acme?", ToAsk},
		{"can 0192:923609016 receive credit notes", ToAsk},
		{"peut-il recevoir des factures", ToAsk},
		{"welke bedrijven in Gent", ToAsk},
		{"welche Firmen", ToAsk},
		{"hvilke selskaper", ToAsk},
		{"vilka företag", ToAsk},
		{"cuántas empresas belgas", ToAsk},
		{"quali aziende", ToAsk},
		{"hvad er BE0677424046", ToAsk},
		{"kuka on 0192:923609016", ToAsk},
		{"onko Vandelanotte Peppolissa", ToAsk},
		{"czy Vandelanotte odbiera faktury", ToAsk},
		{"ile firm", ToAsk},
		{"one two three four five", ToAsk},
		{"Can", ToSearch},
	}
	for _, tt := range tests {
		if got := Route(tt.in); got != tt.want {
			t.Errorf("Route(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
