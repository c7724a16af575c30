// render prints the prompt llama.cpp's common chat code renders for a chat
// template and a conversation, through its Jinja path (minja):
//
//	render TEMPLATE.jinja MESSAGES.json BOS EOS ADD_GENERATION_PROMPT(0|1)
//
// MESSAGES.json is an array of {"role": ..., "content": ...}. The prompt is
// written to standard output as it is, with no newline added.
#include "chat.h"
#include "json.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

static std::string read_file(const char * path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        throw std::runtime_error(std::string("cannot open ") + path);
    }
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

int main(int argc, char ** argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s TEMPLATE.jinja MESSAGES.json BOS EOS ADD_GENERATION_PROMPT\n", argv[0]);
        return 2;
    }
    try {
        auto tmpl = read_file(argv[1]);
        auto msgs = nlohmann::ordered_json::parse(read_file(argv[2]));
        common_chat_templates_inputs inputs;
        inputs.use_jinja = true;
        inputs.add_generation_prompt = std::string(argv[5]) == "1";
        for (const auto & m : msgs) {
            common_chat_msg msg;
            msg.role = m.at("role").get<std::string>();
            msg.content = m.at("content").get<std::string>();
            inputs.messages.push_back(msg);
        }
        auto tmpls = common_chat_templates_init(/* model= */ nullptr, tmpl, argv[3], argv[4]);
        auto params = common_chat_templates_apply(tmpls.get(), inputs);
        fwrite(params.prompt.data(), 1, params.prompt.size(), stdout);
    } catch (const std::exception & e) {
        fprintf(stderr, "render: %s\n", e.what());
        return 1;
    }
    return 0;
}
