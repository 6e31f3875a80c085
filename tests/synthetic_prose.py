"""How the synthetic class writes its written answers: honest students compose their own, a copier swaps words.

An honest answer is a few sentences, each from one of many sentence frames (English, or Brazilian Portuguese for the
students of the Portuguese edition), in the student's own order, with the student's own choice of word wherever the
language offers several (``reached``, ``got to``, ``achieved``...), the assignment's own terms (words of the
instructor's rubric and model answer, which the lesson does not show), and the figures of the student's own run: the
model answer's figures moved by run-to-run noise and written to the same digits, or for about one student in five,
exactly the model answer's (the seeded notebook, run as it is, gives everyone the same numbers).

A copier keeps the copied answer's figures and its order and swaps words for others of the same meaning
(``swap_synonyms``), or changes a few words and the case (``reworded``), or (a copier's habit never used to choose
the thresholds) also moves and rewrites sentences (``shuffled``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from autograder.core import course, notebooks

# Words with others of the same meaning: a student prefers one; a copier swaps to another.
SYNONYMS_EN = [
    ["reached", "got to", "achieved", "hit", "attained", "arrived at"], ["about", "around", "roughly", "approximately"],
    ["model", "network", "net"], ["run", "experiment", "trial", "training run"],
    ["I think", "I believe", "in my view", "it seems to me", "I would say"],
    ["shows", "indicates", "suggests", "means", "tells us"], ["so", "therefore", "thus", "hence"],
    ["choose", "pick", "use", "go with", "prefer"], ["slightly", "a little", "marginally", "somewhat"],
    ["clearly", "obviously", "evidently", "plainly"], ["large", "big", "sizeable", "considerable"],
    ["small", "tiny", "minor", "modest"], ["difference", "gap", "margin"], ["result", "outcome", "finding"],
    ["important", "key", "essential", "crucial"], ["better", "superior", "preferable", "stronger"],
    ["faster", "quicker", "more quickly", "sooner"], ["because", "since", "as"],
    ["however", "but", "on the other hand", "still"], ["overall", "all in all", "in general", "on the whole"],
    ["noticed", "saw", "observed", "found"], ["dropped", "fell", "went down", "decreased"],
    ["stable", "steady", "well behaved"], ["enough", "sufficient", "adequate"], ["conclude", "say", "claim", "infer"],
    ["numbers", "figures", "values", "measurements"], ["matters", "counts", "makes a difference"],
    ["quickly", "rapidly", "fast"], ["took", "needed", "required"], ["machine", "computer", "laptop"],
    ["best", "top", "highest"], ["try", "test", "experiment with"], ["helps", "assists", "aids"],
    ["costs", "takes", "needs"], ["seems", "looks", "appears"], ["gives", "yields", "produces"],
    ["in my run", "in my experiment", "when I ran it", "on my run"], ["then", "after that", "afterwards"],
    ["compared to", "against", "versus"], ["probably", "likely", "most likely"], ["main", "chief", "primary"],
    ["reason", "cause", "explanation"], ["explains", "accounts for", "is behind"], ["higher", "greater", "larger"],
    ["lower", "smaller", "less"], ["points", "percentage points", "pp"], ["changes", "alters", "affects"],
]
SYNONYMS_PT = [
    ["atingiu", "chegou a", "alcançou", "obteve"], ["cerca de", "aproximadamente", "por volta de", "uns"],
    ["modelo", "rede", "rede neural"], ["execução", "experimento", "rodada", "treino"],
    ["acho", "acredito", "penso", "creio"], ["mostra", "indica", "sugere", "revela"],
    ["portanto", "então", "logo", "assim"], ["escolheria", "usaria", "optaria por", "ficaria com"],
    ["pouco", "levemente", "ligeiramente"], ["diferença", "distância", "margem"], ["resultado", "desfecho", "achado"],
    ["importante", "essencial", "fundamental", "crucial"], ["melhor", "superior", "preferível"],
    ["porque", "pois", "já que", "visto que"], ["mas", "porém", "entretanto", "contudo"],
    ["percebi", "notei", "observei", "vi"], ["caiu", "baixou", "diminuiu", "desceu"],
    ["rápido", "depressa", "rapidamente"], ["levou", "demorou", "gastou"], ["máquina", "computador", "notebook"],
    ["maior", "mais alta", "superior"], ["menor", "mais baixa", "inferior"], ["parece", "aparenta", "dá a impressão de"],
]
FRAMES_EN = [
    "{in my run}, the {model} {reached} {fig}% accuracy after {count} epochs.",
    "{I think} the {main} {reason} is that the {term} {matters} more than the {term}.",
    "The {difference} between the two {run}s was {about} {fig} {points}, which is {small}.",
    "{so} I would {choose} the {term} {because} it {reached} {fig} {faster}.",
    "Looking at the {numbers}, the {term} {gives} {fig} {compared to} {fig} for the {term}.",
    "This {shows} that the {term} {matters} here, not the {term}.",
    "{however}, one {run} is not {enough} to {conclude} much {because} seeds differ.",
    "My {numbers} were {fig}, {fig} and {fig}.",
    "The loss {dropped} to {fig} {quickly} and {then} stayed {stable}.",
    "{overall}, the {term} {seems} {better} for this {model}.",
    "With more time I would {try} a {large} {term} as well.",
    "It {took} {about} {fig} seconds per epoch on my {machine}.",
    "The {term} and the {term} behave differently {because} of the {term}.",
    "I {noticed} that the {term} {changes} the {term} a lot.",
    "The {best} value I {noticed} was {fig}, close to what the {term} {gives}.",
    "The {difference} is {small} {compared to} the noise of a single seed.",
    "First, the {term} {helps} {because} it keeps the {term} {stable}.",
    "Second, the {term} {costs} {small} time: {fig} {compared to} {fig}.",
    "{clearly}, a {higher} {term} does not always give a {lower} loss.",
    "The {model} with the {term} was {slightly} {better}, {fig} {compared to} {fig}.",
    "{probably} the {term} {explains} most of this.",
    "{I think} the {result} would hold on another {machine}, {however} the exact {numbers} would not.",
    "After {count} epochs the {term} {reached} {fig} and the {term} {fig}.",
    "It is {important} to look at the {term} and not only at the {term}.",
    "The {term} {dropped} from {fig} to {fig} over the {run}.",
]
FRAMES_PT = [
    "Na minha {execução}, o {modelo} {atingiu} {fig}% de acurácia depois de {count} épocas.",
    "Eu {acho} que o motivo principal é que a {termo} importa mais que a {termo}.",
    "A {diferença} entre as duas {execução}s foi de {cerca de} {fig} pontos, o que é {pouco}.",
    "{portanto} eu {escolheria} a {termo} {porque} ela {atingiu} {fig} mais {rápido}.",
    "Olhando os números, a {termo} dá {fig} contra {fig} da {termo}.",
    "Isso {mostra} que a {termo} é {importante} aqui, e não a {termo}.",
    "{mas} uma {execução} só não basta para concluir muito, {porque} as sementes mudam.",
    "Meus números foram {fig}, {fig} e {fig}.",
    "A perda {caiu} para {fig} {rápido} e depois ficou estável.",
    "No geral, a {termo} {parece} {melhor} para este {modelo}.",
    "Cada época {levou} {cerca de} {fig} segundos na minha {máquina}.",
    "Eu {percebi} que a {termo} muda bastante a {termo}.",
    "O {modelo} com a {termo} foi um {pouco} {melhor}, {fig} contra {fig}.",
    "A {termo} {caiu} de {fig} para {fig} ao longo da {execução}.",
]
TERMS_PT = ["taxa de aprendizado", "acurácia de validação", "perda", "semente", "época", "normalização", "camada",
            "média móvel", "sugestão", "precisão mista", "velocidade", "memória", "matriz de confusão", "classe",
            "otimizador", "momento", "gradiente", "lote", "validação", "curva"]
STOP = set("the a an and of to in is it that this for on with as at by from or be are was were not but its their "
           "which what when than then there these those into over only also more most one two".split())


@dataclass
class Draft:
    """A written answer before it is written out: its sentences, each a list of (synonym group or None, words)."""
    language: str
    sentences: list[list[tuple[int | None, str]]]

    def text(self) -> str:
        out = []
        for sentence in self.sentences:
            words = "".join(w for _, w in sentence)
            out.append(words[:1].upper() + words[1:])
        return " ".join(out)


@dataclass
class Topic:
    """What an assignment's written answer is about: its terms and the model answer's figures."""
    terms: list[str]
    figures: list[str]


def topic(assignment: str, cell: str) -> Topic:
    """The terms (words of the rubric and model answer that the lesson's prose does not use) and the figures of the
    model answer of ``cell``."""
    solution = notebooks.read(course.solution_notebook(assignment))
    text = next(c.source for c in solution.cells if notebooks.grading(c).get("grade_id") == cell)
    lesson = " ".join(c.source for c in notebooks.read(course.lesson_notebook(assignment)).cells
                      if c.cell_type == "markdown").lower()
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", text)]
    terms = sorted({w for w in words if w not in STOP and w not in lesson})
    model = text.split("*A model answer:*")[-1]
    figures = re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?(?=%|\b)", model)
    figures = [f for f in figures if len(f.replace(".", "").lstrip("0")) >= 2] or ["95.8", "0.36", "1.42"]
    return Topic(terms or ["accuracy", "rate"], figures)


def _perturbed(figure: str, rng: random.Random) -> str:
    """The same measurement from another run: moved by a few percent, written to the same digits."""
    mantissa, _, exponent = figure.partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    value = float(mantissa) * (1 + rng.gauss(0, 0.04))
    text = f"{value:.{decimals}f}"
    return text + (f"e{exponent}" if exponent else "")


class Writer:
    """One honest student's way of writing: a preferred word in each synonym group, their own figures."""

    def __init__(self, rng: random.Random, language: str, topic_: Topic):
        self.rng, self.language, self.topic = rng, language, topic_
        self.groups = SYNONYMS_EN if language == "english" else SYNONYMS_PT
        self.preferred = {i: rng.randrange(len(g)) for i, g in enumerate(self.groups)}
        self.lookup = {g[0]: i for i, g in enumerate(self.groups)}
        canonical = rng.random() < 0.2
        self.figures = list(topic_.figures) if canonical else [_perturbed(f, rng) for f in topic_.figures]
        if language == "portuguese" and rng.random() < 0.7:
            self.figures = [f.replace(".", ",") for f in self.figures]
        self.terms = rng.sample(topic_.terms, min(len(topic_.terms), rng.randint(6, 14))) \
            if language == "english" else rng.sample(TERMS_PT, 8)

    def word(self, group: int) -> str:
        choices = self.groups[group]
        return choices[self.preferred[group] if self.rng.random() < 0.8 else self.rng.randrange(len(choices))]

    def answer(self) -> Draft:
        frames = FRAMES_EN if self.language == "english" else FRAMES_PT
        measured = [f for f in frames if "{fig}" in f]
        chosen = self.rng.sample(measured, self.rng.randint(2, 4))  # the question asks for the run's figures
        chosen += self.rng.sample([f for f in frames if f not in chosen], self.rng.randint(4, 7))
        self.rng.shuffle(chosen)
        figures = iter(self.figures * 3)
        sentences = []
        for frame in chosen:
            sentence: list[tuple[int | None, str]] = []
            for piece in re.split(r"(\{[^}]+\})", frame):
                if not piece.startswith("{"):
                    sentence.append((None, piece))
                    continue
                slot = piece[1:-1]
                if slot == "fig":
                    sentence.append((None, next(figures)))
                elif slot == "count":
                    sentence.append((None, str(self.rng.choice([2, 3, 4, 5, 10]))))
                elif slot in ("term", "termo"):
                    sentence.append((None, self.rng.choice(self.terms)))
                else:
                    sentence.append((self.lookup[slot], self.word(self.lookup[slot])))
            sentences.append(sentence)
        return Draft(self.language, sentences)


def swap_synonyms(draft: Draft, rng: random.Random, chance: float) -> Draft:
    """The copy, with each word that has synonyms swapped for another at ``chance``; figures and order kept."""
    groups = SYNONYMS_EN if draft.language == "english" else SYNONYMS_PT
    sentences = []
    for sentence in draft.sentences:
        new = []
        for group, word in sentence:
            if group is not None and rng.random() < chance:
                word = rng.choice([w for w in groups[group] if w != word])
            new.append((group, word))
        sentences.append(new)
    return Draft(draft.language, sentences)


def shuffled(draft: Draft, rng: random.Random, chance: float, writer: Writer) -> Draft:
    """A copier who also moves one sentence, drops one and adds one of their own, then swaps words."""
    sentences = list(draft.sentences)
    if len(sentences) > 3:
        moved = sentences.pop(rng.randrange(len(sentences)))
        sentences.insert(rng.randrange(len(sentences) + 1), moved)
        sentences.pop(rng.randrange(len(sentences)))
    sentences.insert(rng.randrange(len(sentences) + 1), writer.answer().sentences[0])
    return swap_synonyms(Draft(draft.language, sentences), rng, chance)


def reworded(text: str, rng: random.Random) -> str:
    """A light disguise: three words changed and the case changed."""
    tokens = text.split(" ")
    for _ in range(3):
        tokens[rng.randrange(len(tokens))] = rng.choice(["indeed", "really", "basically", "actually"])
    return " ".join(tokens).upper()
