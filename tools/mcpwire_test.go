package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestCheckMessage: what the MCP library would mishandle is refused with the right
// JSON-RPC code, the id kept when it is one; what it handles well passes.
func TestCheckMessage(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 900_000)
	for _, tc := range []struct {
		name, msg string
		code      int // 0: passes
		id        string
		mention   string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", ""},
		{"response", `{"jsonrpc":"2.0","id":"a","result":{}}`, 0, "", ""},
		{"error response with a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, "", ""},
		{"batch", ` [{"jsonrpc":"2.0","id":1,"method":"ping"}]`, RPCInvalidRequest, "null", "batch"},
		{"not JSON", `{"jsonrpc":`, RPCParseError, "null", "JSON"},
		{"a string", `"ping"`, RPCParseError, "null", "JSON"},
		{"empty", ``, RPCParseError, "null", "JSON"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, RPCInvalidRequest, "null", "null"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, RPCInvalidRequest, "null", "id"},
		{"method a number", `{"jsonrpc":"2.0","id":7,"method":5}`, RPCInvalidRequest, "7", "method"},
		{"method empty", `{"jsonrpc":"2.0","id":"q","method":""}`, RPCInvalidRequest, `"q"`, "method"},
		{"neither", `{"jsonrpc":"2.0","id":1}`, RPCInvalidRequest, "1", "method"},
		{"nothing", `{"jsonrpc":"2.0"}`, RPCInvalidRequest, "null", "method"},
		{"prompt fine", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{"company":"Acme","country":"be"}}}`, 0, "", ""},
		{"prompt company long", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{"company":"` + long + `"}}}`, RPCInvalidParams, "1", "company"},
		{"prompt company missing", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{}}}`, RPCInvalidParams, "1", "company"},
		{"prompt country bad", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{"company":"Acme","country":"` + long + `"}}}`, RPCInvalidParams, "1", "country"},
		{"prompt unknown", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}`, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := CheckMessage([]byte(tc.msg))
			if tc.code == 0 {
				if e != nil {
					t.Fatalf("refused: %d %s", e.Code, e.Message)
				}
				return
			}
			if e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.mention) || len(e.Message) > MaxErrorMessage {
				t.Fatalf("%+v, want code %d mentioning %q", e, tc.code, tc.mention)
			}
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct{ Code int }
			}
			if err := json.Unmarshal(e.Response(), &resp); err != nil || resp.JSONRPC != "2.0" || string(resp.ID) != tc.id || resp.Error.Code != tc.code {
				t.Errorf("response %s, want id %s", e.Response(), tc.id)
			}
		})
	}
}

// TestCleanResponse: the library's Go decoding errors become invalid params naming the
// JSON field; long messages are cut; results pass untouched.
func TestCleanResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		code     int
		want     []string // in the message
	}{
		{"cursor", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"unparsable tools/list request: json: cannot unmarshal number into Go struct field PaginatedParams.PaginatedRequest.params.cursor of type mcp.Cursor"}}`,
			RPCInvalidParams, []string{"tools/list", "params.cursor", "a number"}},
		{"params array", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"unparsable tools/list request: json: cannot unmarshal array into Go struct field ListToolsRequest.PaginatedRequest.params of type mcp.PaginatedParams"}}`,
			RPCInvalidParams, []string{"params has the wrong type", "an array"}},
		{"other Go", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"json: unsupported value: NaN"}}`,
			RPCInternalError, []string{"MCP specification"}},
		{"long", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method ` + strings.Repeat("y", 5000) + ` not found"}}`,
			-32601, []string{"Method yyy", "…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out struct {
				ID    int
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(CleanResponse([]byte(tc.in)), &out); err != nil {
				t.Fatal(err)
			}
			if out.ID != 1 || out.Error.Code != tc.code || len([]rune(out.Error.Message)) > MaxErrorMessage+1 {
				t.Errorf("%+v, want code %d", out, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.Error.Message, w) {
					t.Errorf("message %q lacks %q", out.Error.Message, w)
				}
			}
			for _, leak := range []string{"Go ", "json:", "mcp.", "struct", "Params."} {
				if strings.Contains(out.Error.Message, leak) {
					t.Errorf("message %q shows %q", out.Error.Message, leak)
				}
			}
		})
	}
	result := []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"an \"error\" word"}}` + "\n")
	if got := CleanResponse(result); string(got) != string(result) {
		t.Errorf("a result was rewritten: %s", got)
	}
}

// TestBatchMessageHonest: the MCP library negotiates revisions that allowed JSON-RPC
// batches (before 2025-06-18); peppolgate refuses batches in every revision, and its
// refusal names those revisions rather than claiming it speaks only later ones.
func TestBatchMessageHonest(t *testing.T) {
	t.Parallel()
	for _, v := range mcp.ValidProtocolVersions {
		if v < "2025-06-18" && !strings.Contains(BatchMessage, v) {
			t.Errorf("the MCP library negotiates %s, which allowed batches, and the batch refusal does not say it is refused there too: %q", v, BatchMessage)
		}
	}
}
