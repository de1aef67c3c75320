package llm

import "time"

// EndpointConfig names an OpenAI-compatible chat endpoint (vLLM, SGLang,
// DashScope, OpenAI) and the limits of its use, as a run configuration
// spells it (an llm section: the step judge's, the task explorer's, the
// graders'). Package llm/openai builds a client from it. Zero limits mean
// the defaults of whoever uses the endpoint.
type EndpointConfig struct {
	// BaseURL and ModelName name the endpoint and the model it serves.
	BaseURL   string `yaml:"base_url"`
	ModelName string `yaml:"model_name"`
	// APIKeyEnv names the environment variable holding the API key;
	// empty means OPENAI_API_KEY.
	APIKeyEnv string `yaml:"api_key_env"`
	// Concurrency bounds the requests in flight.
	Concurrency int `yaml:"concurrency"`
	// MaxAttempts bounds the requests per item, the first included.
	MaxAttempts int `yaml:"max_attempts"`
	// Timeout bounds each request.
	Timeout time.Duration `yaml:"timeout"`
}
