// tokenize prints, for each llama.cpp vocabulary file given, texts made of
// its special tokens and ordinary text with the ids llama.cpp's
// llama_tokenize gives them with add_special and parse_special true, as
// llama.cpp tokenizes a chat prompt: one JSON object per line,
// {"vocab": FILE, "text": TEXT, "ids": [...]}.
#include "llama.h"
#include "json.hpp"

#include <cstdio>
#include <string>
#include <vector>

// without_last_char returns s less its last UTF-8 character.
static std::string without_last_char(const std::string & s) {
    size_t i = s.size();
    while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) i--;
    return s.substr(0, i > 0 ? i - 1 : 0);
}

int main(int argc, char ** argv) {
    llama_backend_init();
    for (int a = 1; a < argc; a++) {
        auto params = llama_model_default_params();
        params.vocab_only = true;
        llama_model * model = llama_model_load_from_file(argv[a], params);
        if (!model) {
            fprintf(stderr, "cannot load %s\n", argv[a]);
            return 1;
        }
        const llama_vocab * vocab = llama_model_get_vocab(model);
        std::vector<std::string> specials;
        const int n = llama_vocab_n_tokens(vocab);
        for (int id = 0; id < n; id++) {
            if (llama_vocab_get_attr(vocab, id) & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED | LLAMA_TOKEN_ATTR_UNKNOWN)) {
                specials.push_back(llama_vocab_get_text(vocab, id));
            }
        }
        if (specials.empty()) {
            continue;
        }
        // The first three special tokens and the last three.
        std::vector<std::string> s;
        for (size_t i = 0; i < specials.size() && i < 3; i++) s.push_back(specials[i]);
        for (size_t i = specials.size() >= 3 ? specials.size() - 3 : 0; i < specials.size(); i++) s.push_back(specials[i]);
        while (s.size() < 6) s.push_back(s.back());
        const std::vector<std::string> texts = {
            s[0] + "Hello world" + s[3],
            "Hi" + s[1] + "there" + s[4] + s[4] + "\n",
            " " + s[2] + " spaced " + s[5] + " ",
            without_last_char(s[0]) + "x",
            s[3] + s[4] + s[5],
            "Gr\xc3\xbc\xc3\x9f" "e \xf0\x9f\x99\x82\n\n" + s[5] + "user\nWhat is 2+2?" + s[1],
            "no special tokens at all",
            "",
        };
        for (const auto & text : texts) {
            std::vector<llama_token> ids(text.size() + 8);
            int k = llama_tokenize(vocab, text.data(), text.size(), ids.data(), ids.size(), true, true);
            if (k < 0) {
                fprintf(stderr, "tokenize failed\n");
                return 1;
            }
            ids.resize(k);
            std::string name = argv[a];
            name = name.substr(name.find_last_of('/') + 1);
            nlohmann::json line = {{"vocab", name}, {"text", text}, {"ids", ids}};
            printf("%s\n", line.dump().c_str());
        }
        llama_model_free(model);
    }
    return 0;
}
