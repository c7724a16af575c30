package catalog

import "slices"

// Download is a model known to work that the playground fetches by URL,
// as it fetches any GGUF file a reader names (its preflight, progress,
// range check, cache and CORS handling): a real model's file, too large to
// ship with the page.
type Download struct {
	Name    string // for people, as the model picker lists it
	URL     string // the GGUF file: Hugging Face's resolve/main address
	Size    int64  // the file's bytes, as Checked says
	Arch    string // its general.architecture
	Format  string // the types of its matrices, as llama-quantize names the mixture
	License string
	Shows   string // what it shows well in the playground
}

// Downloads are the models known to work, smallest first. Neither the
// files nor their hosts can be reached from where this list was made: the
// comment on each says where its URL and size were read (public projects
// that fetch the file), and which size is an estimate. The page does not
// rely on Size: a file's size is what its server says.
var Downloads = []Download{
	// Checked: size and SHA-256 (c4a3dd03…) as a public project's model list gives them for this URL.
	{
		Name: "SmolLM2 135M Instruct (Q8_0)", Size: 144_811_072, Arch: "llama", Format: "Q8_0", License: "Apache-2.0",
		URL:   "https://huggingface.co/unsloth/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct-Q8_0.gguf",
		Shows: "a real chat model small enough to step through quickly: 30 layers 576 wide, grouped-query attention, 49,152 tokens",
	},
	// Checked: URL as public projects download it; size an estimate from GPT-2's 124M weights in Q8_0 with its output copy.
	{
		Name: "GPT-2 small (Q8_0)", Size: 176_000_000, Arch: "gpt2", Format: "Q8_0", License: "MIT",
		URL:   "https://huggingface.co/QuantFactory/gpt2-GGUF/resolve/main/gpt2.Q8_0.gguf",
		Shows: "the model the best-known explainers run: LayerNorm with biases, a GELU MLP, learned positions, 50,257 byte-level tokens",
	},
	// Checked: size and SHA-256 (0ef57d2c…) as a public project's list gives them, the same hash a Nix package pins for this URL.
	{
		Name: "Gemma 3 270M instruct (Q8_0)", Size: 291_545_600, Arch: "gemma3", Format: "Q8_0", License: "Gemma Terms of Use",
		URL:   "https://huggingface.co/ggml-org/gemma-3-270m-it-GGUF/resolve/main/gemma-3-270m-it-Q8_0.gguf",
		Shows: "a vocabulary of 262,144 tokens, sliding-window attention on five layers in six, and norms on queries and keys",
	},
	// Checked: size as a public wllama-based app's model list gives it for this URL.
	{
		Name: "Qwen2.5 0.5B Instruct (Q4_K_M)", Size: 397_808_192, Arch: "qwen2", Format: "Q4_K_M", License: "Apache-2.0",
		URL:   "https://huggingface.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf",
		Shows: "biases on queries, keys and values, a vocabulary of 151,936 tokens, and rows of 896 that fall back from Q4_K to Q5_0 and Q8_0",
	},
	// Checked: URL as public projects download it; size an estimate from the 638 MiB a public list gives.
	{
		Name: "TinyLlama 1.1B Chat (Q4_K_M)", Size: 668_800_000, Arch: "llama", Format: "Q4_K_M", License: "Apache-2.0",
		URL:   "https://huggingface.co/TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF/resolve/main/tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf",
		Shows: "22 layers 2,048 wide with 4 key/value heads for 32 query heads, and Llama 2's 32,000 tokens",
	},
	// Checked: size as a public wllama-based app's model list gives it for this URL.
	{
		Name: "Llama 3.2 1B Instruct (Q4_K_M)", Size: 807_694_464, Arch: "llama", Format: "Q4_K_M", License: "Llama 3.2 Community License",
		URL:   "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
		Shows: "Llama 3's RoPE frequency factors and 128,256 tokens; the largest here, near what a page can hold",
	},
}

// DownloadAt is the model known to work whose file is at url.
func DownloadAt(url string) (Download, bool) {
	i := slices.IndexFunc(Downloads, func(d Download) bool { return d.URL == url })
	if i < 0 {
		return Download{}, false
	}
	return Downloads[i], true
}
