"""Build tiny randomly initialised transformers models + tokenizers trained on a few sentences."""

from __future__ import annotations

from pathlib import Path

SENTENCES = [
    "The dog barks at the mailman.",
    "El perro ladra al cartero.",
    "A cat sleeps on the mat.",
    "Un gato duerme en la alfombra.",
    "Maria visited Madrid in 2020.",
    "No quiero ir a la playa.",
    "I do not want to go to the beach.",
    "The government approved the law in March.",
]


def train_tokenizer(extra_special: list[str] | None = None, vocab_size: int = 300):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    from tokenizers import decoders

    tok.decoder = decoders.ByteLevel()
    specials = ["<pad>", "<unk>", "<s>", "</s>"] + (extra_special or [])
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(SENTENCES * 3, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        additional_special_tokens=extra_special or [],
    )
    return fast


def causal_lm(path: Path, chat_template: bool = True) -> Path:
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = train_tokenizer()
    if chat_template:
        tok.chat_template = (
            "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}"
            "{% if add_generation_prompt %}<s>assistant:{% endif %}"
        )
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def seq2seq(path: Path, extra_ids: int = 3) -> Path:
    from transformers import T5Config, T5ForConditionalGeneration

    extra = [f"<extra_id_{i}>" for i in range(extra_ids)]
    tok = train_tokenizer(extra_special=extra)
    cfg = T5Config(
        vocab_size=len(tok),
        d_model=32,
        d_ff=64,
        d_kv=8,
        num_layers=2,
        num_heads=2,
        decoder_start_token_id=tok.pad_token_id,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
    )
    T5ForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def classifier(path: Path, num_labels: int, id2label: dict[int, str] | None = None, max_positions: int = 128) -> Path:
    from transformers import BertConfig, BertForSequenceClassification

    tok = train_tokenizer()
    tok.cls_token, tok.sep_token = "<s>", "</s>"
    cfg = BertConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        max_position_embeddings=max_positions,
        num_labels=num_labels,
        pad_token_id=tok.pad_token_id,
    )
    if id2label:
        cfg.id2label = id2label
        cfg.label2id = {v: k for k, v in id2label.items()}
    BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def sentinel(path: Path, hidden_sizes=(16, 8)) -> Path:
    """A tiny random Sentinel-src checkpoint in the guardians-mt-eval layout (hparams.yaml + checkpoints/model.ckpt)."""
    import torch
    import yaml
    from transformers import XLMRobertaConfig, XLMRobertaModel

    tok = train_tokenizer()
    tok.cls_token, tok.sep_token = "<s>", "</s>"
    enc_dir = path / "encoder"
    cfg = XLMRobertaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        max_position_embeddings=130,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    cfg.save_pretrained(enc_dir)
    tok.save_pretrained(enc_dir)
    torch.manual_seed(0)
    enc = XLMRobertaModel(cfg, add_pooling_layer=False)
    layers, dims = [], [32, *hidden_sizes]
    for a, b in zip(dims, dims[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.Tanh(), torch.nn.Dropout(0.1)]
    layers.append(torch.nn.Linear(dims[-1], 1))
    ff = torch.nn.Sequential(*layers)
    state = {f"encoder.model.{k}": v for k, v in enc.state_dict().items()}
    state.update({f"estimator.ff.{k}": v for k, v in ff.state_dict().items()})
    (path / "checkpoints").mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": state}, path / "checkpoints" / "model.ckpt")
    (path / "hparams.yaml").write_text(
        yaml.safe_dump(
            {
                "pretrained_model": str(enc_dir),
                "hidden_sizes": list(hidden_sizes),
                "activations": "Tanh",
                "final_activation": None,
                "dropout": 0.1,
                "sent_to_use": "src",
                "load_pretrained_weights": False,
            }
        )
    )
    return path
