package envservice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// request is a decoded env-service request body (the reference's
// ServiceRequest). A string field sent as JSON null is "".
type request struct {
	envType    string
	taskID     string
	instanceID string
	// messages is the raw "messages" object ("{}" when absent).
	messages json.RawMessage
	params   map[string]any
	// trusted is set by the server, not decoded: the caller carried the
	// token, or the server trusts every caller (ServerConfig.TrustClientIDs),
	// so a create honours its instanceID.
	trusted bool
}

// reply is what a route answers: a status and a JSON-encodable body.
type reply struct {
	status int
	body   any
	// undo, when set, is called (with the reason) if the answer cannot be
	// delivered: the client went away first or the write failed. A create
	// uses it to release the instance nobody will learn the id of.
	undo func(reason string)
}

// envelope is the success body of every POST route.
type envelope struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// detailBody is the error body, {"detail": "..."} as FastAPI's HTTPException.
type detailBody struct {
	Detail string `json:"detail"`
}

// validationBody is FastAPI's 422 body for a request that fails schema
// validation.
type validationBody struct {
	Detail []validationIssue `json:"detail"`
}

// validationIssue is one entry of a 422 body, in pydantic v1's shape (the
// FastAPI the reference runs on).
type validationIssue struct {
	Loc  []string `json:"loc"`
	Msg  string   `json:"msg"`
	Type string   `json:"type"`
}

func ok(data any) reply {
	return reply{status: http.StatusOK, body: envelope{Success: true, Data: data}}
}

func fail(status int, detail string) reply {
	return reply{status: status, body: detailBody{Detail: detail}}
}

// Limits on the text an error detail carries.
const maxDetailLen = 1024

// decodeRequest parses a request body. An empty body is an empty object.
// Keys are matched exactly, as pydantic does; unknown keys are ignored. A
// body that is not JSON yields a 400, one that does not fit the schema a
// FastAPI-style 422.
func decodeRequest(body []byte, defaultEnvType string) (request, *reply) {
	req := request{envType: defaultEnvType, messages: json.RawMessage("{}")}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return req, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return req, &reply{status: http.StatusUnprocessableEntity, body: validationBody{Detail: []validationIssue{
				{Loc: []string{"body"}, Msg: "value is not a valid dict", Type: "type_error.dict"},
			}}}
		}
		r := fail(http.StatusBadRequest, "malformed JSON body: "+truncate(err.Error(), 200))
		return req, &r
	}
	if fields == nil { // the body was JSON null
		return req, &reply{status: http.StatusUnprocessableEntity, body: validationBody{Detail: []validationIssue{
			{Loc: []string{"body"}, Msg: "field required", Type: "value_error.missing"},
		}}}
	}

	var issues []validationIssue
	str := func(name string, dst *string) {
		raw, present := fields[name]
		if !present {
			return
		}
		if bytes.Equal(raw, []byte("null")) {
			*dst = ""
			return
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			issues = append(issues, validationIssue{Loc: []string{"body", name}, Msg: "str type expected", Type: "type_error.str"})
		}
	}
	object := func(name string) json.RawMessage {
		raw, present := fields[name]
		switch {
		case !present:
			return nil
		case bytes.Equal(raw, []byte("null")):
			issues = append(issues, validationIssue{Loc: []string{"body", name}, Msg: "none is not an allowed value", Type: "type_error.none.not_allowed"})
		case raw[0] != '{':
			issues = append(issues, validationIssue{Loc: []string{"body", name}, Msg: "value is not a valid dict", Type: "type_error.dict"})
		default:
			return raw
		}
		return nil
	}
	str("env_type", &req.envType)
	str("task_id", &req.taskID)
	str("instance_id", &req.instanceID)
	if raw := object("messages"); raw != nil {
		req.messages = raw
	}
	if raw := object("params"); raw != nil {
		if err := json.Unmarshal(raw, &req.params); err != nil {
			// Unreachable for a syntactically valid object; kept defensive.
			issues = append(issues, validationIssue{Loc: []string{"body", "params"}, Msg: "value is not a valid dict", Type: "type_error.dict"})
		}
	}
	if len(issues) > 0 {
		return req, &reply{status: http.StatusUnprocessableEntity, body: validationBody{Detail: issues}}
	}
	if req.params == nil {
		req.params = map[string]any{}
	}
	return req, nil
}

// splitParam reads params["split"]; absent or null means the default.
func splitParam(params map[string]any) (string, error) {
	v, ok := params["split"]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("params.split must be a string, got %T", v)
	}
	return s, nil
}
