"""PyTorch's "Sequence Models and Long Short-Term Memory Networks" tutorial: an LSTM
part-of-speech tagger (Embedding, LSTM, Linear, log_softmax, NLLLoss, SGD), on its two
training sentences, plus a batched, bidirectional, two-layer GRU over the same words.
``initial`` gives the starting weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

training_data = [
    ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("Everybody read that book".split(), ["NN", "V", "DET", "NN"]),
]
word_to_ix = {}
for sent, tags in training_data:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
tag_to_ix = {"DET": 0, "NN": 1, "V": 2}


def prepare_sequence(seq, to_ix):
    idxs = [to_ix[w] for w in seq]
    return torch.tensor(idxs, dtype=torch.long)


class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)
        self.gru = nn.GRU(embedding_dim, 4, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores

    def both(self, batch):
        out, h = self.gru(self.word_embeddings(batch))
        return out.sum() + h.sum()


def run(initial=None):
    model = LSTMTagger(6, 6, len(word_to_ix), len(tag_to_ix))
    if initial is not None:
        model.load_state_dict(initial)
    out = {"initial": {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()},
           "losses": []}
    loss_function = nn.NLLLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    batch = torch.stack([prepare_sequence(training_data[0][0][:4], word_to_ix),
                         prepare_sequence(training_data[1][0], word_to_ix)])
    for epoch in range(30):
        for sentence, tags in training_data:
            model.zero_grad()
            sentence_in = prepare_sequence(sentence, word_to_ix)
            targets = prepare_sequence(tags, tag_to_ix)
            tag_scores = model(sentence_in)
            loss = loss_function(tag_scores, targets) + 0.01 * model.both(batch)
            loss.backward()
            optimizer.step()
            out["losses"].append(loss.item())
    with torch.no_grad():
        inputs = prepare_sequence(training_data[0][0], word_to_ix)
        out["tag_scores"] = model(inputs)
    return out
