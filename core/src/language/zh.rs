//! Chinese, as memory reads it: written without spaces, so its lists match anywhere in a
//! sentence, and recall's grammar words are two-letter pieces (`crate::words::tokens`).

use super::Lang;
use super::reader::{
    Constraints, Cues, Identity, Letters, Named, OneAtATime, Reader, Secrets, Tally, Times, Unsaid,
};

pub const READER: Reader = Reader {
    lang: Lang::Chinese,
    first_person: &[],
    first_person_openings: &["我"],
    // Chinese chat says "我" (the persona and XPersona turns): a sentence without it is not read
    // as the writer's until measured otherwise.
    unsaid_subject: Unsaid::Said,
    you: &["你", "您"],
    asks: &["吗", "呢", "么"],
    listener_openers: &["谢谢", "你好", "告诉你", "跟你说", "你知道吗", "说真的"],
    passing: &[
        "今天",
        "今晚",
        "我不知道",
        "我认为",
        "我不这么认为",
        "遗憾",
        "听起来",
        "太棒了",
        "我很好",
        "心情",
        "好累",
        "很累",
        "累死",
        "开心",
        "难过",
        "伤心",
        "哈哈",
        "晚安",
        "生气",
        "压力",
        "无聊",
    ],
    pointing: &["了它", "那里", "那儿", "这样", "那样"],
    grammar: &[
        "我的", "你的", "什么", "是什", "哪里", "在哪", "怎么", "为什", "我是", "我在", "我有",
        "的是", "了吗", "是不", "不是", "一个", "这个", "那个", "我们", "他们", "可以", "知道",
        "吗", "呢", "叫什", "么名",
    ],
    secrets: Secrets {
        names: &[
            ("密码", Named::Password),
            ("口令", Named::Password),
            ("验证码", Named::Password),
            ("pin码", Named::Pin),
            ("取款码", Named::Pin),
            ("支付码", Named::Password),
        ],
        links: &["是", "为"],
        before: &["作为"],
    },
    identity: Identity {
        name: Cues {
            asked: &["我叫什么", "我的名字是什么", "我的名字叫什么"],
            told: &["我叫", "我的名字"],
        },
        home: Cues {
            asked: &["我住在哪", "我住哪"],
            told: &["住在", "我住"],
        },
        work: Cues {
            asked: &[
                "我做什么工作",
                "我的工作是什么",
                "我在哪工作",
                "我在哪里工作",
            ],
            told: &["我的工作", "我是一名", "工作是", "上班"],
        },
        one_at_a_time: OneAtATime {
            home: &["我住在", "我住", "我搬到", "我搬去"],
            employer: &["我在…上班", "我在…工作"],
        },
    },
    letters: Letters {
        headers: &["发件人", "收件人", "主题"],
        wrote: &["写道：", "写道:"],
        greetings: &["亲爱的"],
        sign_offs: &["此致", "此致敬礼"],
    },
    constraints: Constraints {
        diet: &[
            "素食",
            "吃素",
            "不吃肉",
            "不吃猪肉",
            "乳糖不耐",
            "清真",
            "不喝酒",
            "麸质",
        ],
        allergy: &["过敏"],
        allergens: &["坚果", "花生", "海鲜", "牛奶", "鸡蛋"],
        advice: &["建议", "推荐", "主意"],
        food: &[
            "晚饭", "晚餐", "午饭", "午餐", "食谱", "菜谱", "做饭", "吃饭", "餐厅",
        ],
    },
    times: Times {
        days: &[("今天", 0), ("今晚", 0), ("明天", 1), ("后天", 2)],
        weeks: &[
            ("这周", 0),
            ("这个星期", 0),
            ("本周", 0),
            ("下周", 1),
            ("下个星期", 1),
        ],
        weekdays: [
            &["星期一", "周一", "礼拜一"],
            &["星期二", "周二", "礼拜二"],
            &["星期三", "周三", "礼拜三"],
            &["星期四", "周四", "礼拜四"],
            &["星期五", "周五", "礼拜五"],
            &["星期六", "周六", "礼拜六"],
            &["星期天", "星期日", "周日", "礼拜天"],
        ],
        likings: &["喜欢"],
        habits: &["每", "经常", "总是"],
    },
    tally: Tally {
        count: &[
            "多少", "几个", "几次", "几天", "几本", "几家", "几位", "一共", "总共", "总计",
        ],
        order: &["最早", "第一个", "先", "顺序"],
    },
    how_to: &[
        "我该怎么",
        "我应该怎么",
        "我怎么才能",
        "我怎样才能",
        "我要怎么",
        "我如何",
    ],
    requests: &[
        "给我",
        "告诉我",
        "教我",
        "跟我说",
        "请给我",
        "请告诉我",
        "请教我",
    ],
    letters_of_its_own: &[],
    given_up: &["不再", "戒了", "戒掉", "戒", "已经不"],
};
