"""How players write moves, per language: the kinds of words a reply's lines are made of, and
the phrases of each kind in every language we read (`lexer` indexes them).

A new language is one more entry of `VOCABULARIES`: its keys are `pbem.i18n.LANGUAGES`, the one
list of languages (a test checks they are the same).
"""
from __future__ import annotations

# Token kinds. Verbs, card words, ship words and markers carry meaning; the "fillers" do not.
DRAW, DISCARD, PLAY, ATTACK, DEFEND = "draw", "discard", "play", "attack", "defend"
COLOUR, PIRATE, CAPTAIN, ADMIRAL, MERCHANT, SHIP, GOLD = (
    "colour", "pirate", "captain", "admiral", "merchant", "ship", "gold")
NUMWORD, CHOOSE, ON, WITH, OF, POSS, MINE, OR = "numword", "choose", "on", "with", "of", "poss", "mine", "or"
ARTICLE, CARD, ONECARD, PRONOUN = "article", "card", "onecard", "pronoun"
COURTESY, GREETING, CLOSING, SAY, TELL = "courtesy", "greeting", "closing", "say", "tell"
NUMBER, CODE, WORD = "number", "code", "word"  # made by the lexer, not by a vocabulary

VERBS = frozenset({DRAW, DISCARD, PLAY, ATTACK, DEFEND})
POLITE = frozenset({COURTESY, GREETING, CLOSING})
# Dropped before a line is read as a move: they say nothing about which move.
FILLERS = frozenset({ARTICLE, CARD, ONECARD, PRONOUN, MINE, WITH, PIRATE, CHOOSE} | POLITE)
# What may stand around a move number on its line ("the 2 please", "je choisis le 2", "coup n°2").
NUMBER_LINE = frozenset({NUMWORD, CHOOSE, ARTICLE, PRONOUN} | POLITE)

# How players write moves, per language, as they type them (with their diacritics). "colour:G" is
# the colour whose card codes start with G.
VOCABULARIES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        DRAW: ("draw", "draws", "drawing", "pick a card", "pick up a card", "take a card"),
        DISCARD: ("discard", "discards", "throw away", "throw out", "get rid of"),
        PLAY: ("play", "plays", "put", "place", "lay", "lay down", "use"),
        ATTACK: ("attack", "attacks", "raid"),
        DEFEND: ("defend", "defends", "reinforce", "protect"),
        "colour:G": ("green",), "colour:B": ("blue",), "colour:R": ("red",), "colour:K": ("black",),
        PIRATE: ("pirate", "pirates", "pirate ship", "pirate card"),
        CAPTAIN: ("captain", "capt"),
        ADMIRAL: ("admiral",),
        MERCHANT: ("merchant", "merchant ship", "merchantman", "merchant card"),
        SHIP: ("ship", "boat", "vessel"),
        GOLD: ("gold", "golds", "gold coins", "coins"),
        NUMWORD: ("number", "no", "nr", "num", "move", "move number", "option", "choice"),
        CHOOSE: ("choose", "i choose", "pick", "i pick", "take", "i take", "go for", "go with"),
        ON: ("on", "onto", "on to", "to", "at", "against"),
        WITH: ("with", "using"),
        OF: ("of",),
        POSS: ("'s",),
        MINE: ("my", "your", "my own", "mine", "own"),
        ARTICLE: ("the", "a", "an"),
        CARD: ("card", "cards"),
        ONECARD: ("a card", "one card", "1 card", "another card", "a new card", "the top card"),
        PRONOUN: ("i", "i'll", "i will", "i'd", "i would", "i'm", "i am", "i'm going to", "i am going to",
                  "going to", "gonna", "let me", "let's", "lets", "i want to", "i'd like to",
                  "i would like to", "will", "just", "now", "then"),
        COURTESY: ("please", "pls", "plz", "thanks", "thank you", "thanks a lot", "thank you so much",
                   "thanks so much", "many thanks", "thx", "ty", "ok", "okay"),
        GREETING: ("hi", "hello", "hey", "hi there", "dear", "good morning", "good evening", "morning"),
        CLOSING: ("cheers", "regards", "best", "best regards", "kind regards", "warm regards",
                  "best wishes", "all the best", "yours", "sincerely", "bye", "see you", "see ya",
                  "take care", "love", "xoxo", "xx", "cheerio"),
        OR: ("or", "and"),
        SAY: ("say",), TELL: ("tell",),
    },
    "fr": {
        DRAW: ("piocher", "pioche", "pioches", "piochez", "pioché", "tirer", "tire", "tirez",
               "prendre une carte", "prends une carte", "repiocher"),
        DISCARD: ("défausser", "défausse", "défausses", "défaussez", "défaussé", "me défausser de",
                  "me défausser du", "me défausse du", "se défausser de", "se défausser du",
                  "me défausse de", "jeter", "jette", "écarter", "écarte"),
        PLAY: ("jouer", "joue", "joues", "jouez", "poser", "pose", "poses", "posez", "mettre", "mets",
               "mettez", "placer", "place", "placez", "utiliser", "utilise"),
        ATTACK: ("attaquer", "attaque", "attaques", "attaquez"),
        DEFEND: ("défendre", "défends", "défend", "défendez", "renforcer", "renforce", "protéger",
                 "protège"),
        "colour:G": ("vert", "verte", "verts"), "colour:B": ("bleu", "bleue", "bleus"),
        "colour:R": ("rouge", "rouges"), "colour:K": ("noir", "noire", "noirs"),
        PIRATE: ("corsaire", "corsaires", "pirate", "navire pirate", "bateau pirate"),
        CAPTAIN: ("capitaine",),
        ADMIRAL: ("amiral",),
        MERCHANT: ("marchand", "navire marchand", "vaisseau marchand", "bateau marchand",
                   "navire de commerce"),
        SHIP: ("vaisseau", "vaisseaux", "navire", "bateau"),
        GOLD: ("or", "d'or", "pièces d'or", "pièce d'or", "pièces", "écus"),
        NUMWORD: ("n", "no", "num", "numéro", "coup", "coup numéro", "option", "choix"),
        CHOOSE: ("je choisis", "choisis", "je prends", "prends"),
        ON: ("sur", "au", "contre"),
        WITH: ("avec", "par"),
        OF: ("de", "du", "d"),
        MINE: ("mon", "ma", "mes", "votre", "vos", "ton", "ta", "tes", "le mien", "à moi"),
        ARTICLE: ("le", "la", "les", "l", "un", "une", "des", "ce", "cet", "cette"),
        CARD: ("carte", "cartes"),
        ONECARD: ("une carte", "1 carte", "une nouvelle carte", "une autre carte"),
        PRONOUN: ("je", "j", "moi", "moi je", "je vais", "vais", "je veux", "je voudrais", "alors",
                  "donc", "bon", "maintenant"),
        COURTESY: ("merci", "merci beaucoup", "merci bien", "mille mercis", "merci à toi", "merci à vous",
                   "svp", "stp", "s'il vous plaît", "s'il te plaît", "d'accord", "ok"),
        GREETING: ("bonjour", "bonsoir", "salut", "coucou", "cher", "chère", "chers"),
        CLOSING: ("cordialement", "bien cordialement", "bien à vous", "bises", "bisous", "grosses bises",
                  "amitiés", "amicalement", "à bientôt", "à plus", "à plus tard", "tchao", "ciao",
                  "bonne journée", "bonne soirée", "bonne nuit", "salutations"),
        OR: ("ou", "et"),
        SAY: ("dis", "dire", "dites"),
    },
    "vi": {
        DRAW: ("rút", "rút bài", "rút lá", "rút thêm", "bốc", "bốc bài", "bốc thêm", "lấy bài",
               "lấy một lá", "lấy 1 lá"),
        DISCARD: ("bỏ", "bỏ bài", "bỏ lá", "loại", "loại bỏ", "vứt", "vứt bài", "vứt bỏ"),
        PLAY: ("đặt", "đánh", "chơi", "ra", "ra bài", "dùng", "thả"),
        ATTACK: ("tấn công", "cướp"),
        DEFEND: ("phòng thủ", "bảo vệ", "giữ"),
        "colour:G": ("xanh lá", "xanh lá cây", "xanh lục"),
        "colour:B": ("xanh dương", "xanh lam", "xanh da trời", "xanh nước biển"),
        "colour:R": ("đỏ",), "colour:K": ("đen",),
        PIRATE: ("tàu hải tặc", "hải tặc", "tàu cướp biển", "cướp biển", "thuyền hải tặc"),
        CAPTAIN: ("thuyền trưởng",),
        ADMIRAL: ("đô đốc",),
        MERCHANT: ("tàu buôn", "thuyền buôn"),
        SHIP: ("tàu", "thuyền", "con tàu", "chiếc tàu"),
        GOLD: ("vàng", "đồng vàng"),
        NUMWORD: ("số", "nước", "nước đi", "nước số", "nước đi số", "lựa chọn", "phương án"),
        CHOOSE: ("chọn", "tôi chọn", "mình chọn", "em chọn"),
        ON: ("lên", "vào", "trên", "cho"),
        WITH: ("bằng", "với"),
        OF: ("của",),
        MINE: ("của tôi", "của mình", "của em", "của bạn", "của anh", "của chị", "của tớ"),
        ARTICLE: ("cái", "con", "chiếc", "quân"),
        CARD: ("lá", "lá bài", "bài", "thẻ", "quân bài"),
        ONECARD: ("một lá", "một lá bài", "1 lá", "1 lá bài", "một thẻ", "1 thẻ", "một quân"),
        PRONOUN: ("tôi", "mình", "em", "anh", "chị", "tớ", "sẽ", "tôi sẽ", "để tôi", "bây giờ", "giờ",
                  "luôn", "đi", "thôi", "xin"),
        COURTESY: ("nhé", "nha", "ạ", "nhá", "nhe", "cảm ơn", "cám ơn", "cảm ơn nhiều", "cám ơn nhiều",
                   "cảm ơn bạn", "cám ơn bạn", "xin cảm ơn", "làm ơn", "vâng", "dạ", "ok", "được"),
        GREETING: ("chào", "xin chào", "chào bạn", "chào cả nhà", "chào mọi người"),
        CLOSING: ("thân", "thân mến", "thân ái", "trân trọng"),
        OR: ("hoặc", "hay", "và"),
        SAY: ("nói",), TELL: ("nhắn",),
    },
}
LATIN = frozenset({"en", "fr"})  # a word with accents may be matched folded only in these...
FRENCH = frozenset("àâäçéèêëîïôöùûüÿœæ")  # ...and only when its accents are French ones
