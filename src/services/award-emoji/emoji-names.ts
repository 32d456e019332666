// The emoji names an award may carry. The original validates award names against its emoji set
// (gemojione, some 1,800 names); this is the part of that set people react with — faces, hands,
// hearts, nature, food, activities, travel, objects and symbols — under the original's names.
// Aliases (`+1`, `-1`, …) are stored under the canonical name, as the original normalizes them.

const ALIASES: ReadonlyMap<string, string> = new Map([
  ['+1', 'thumbsup'],
  ['-1', 'thumbsdown'],
  ['thumbs_up', 'thumbsup'],
  ['thumbs_down', 'thumbsdown'],
  ['satisfied', 'laughing'],
  ['shit', 'poop'],
  ['hankey', 'poop'],
  ['facepunch', 'punch'],
  ['hand', 'raised_hand'],
  ['thinking_face', 'thinking'],
  ['slight_smile', 'slightly_smiling_face'],
  ['hugging_face', 'hugging'],
  ['party_popper', 'tada'],
])

const NAMES = `
  grinning grin joy rofl smiley smile sweat_smile laughing wink blush yum sunglasses heart_eyes kissing_heart
  kissing kissing_smiling_eyes kissing_closed_eyes relaxed slightly_smiling_face hugging star_struck thinking
  face_with_raised_eyebrow neutral_face expressionless no_mouth rolling_eyes smirk persevere
  disappointed_relieved open_mouth zipper_mouth hushed sleepy tired_face sleeping relieved stuck_out_tongue
  stuck_out_tongue_winking_eye stuck_out_tongue_closed_eyes drooling_face unamused sweat pensive confused
  upside_down money_mouth astonished frowning2 slight_frown confounded disappointed worried triumph cry sob
  frowning anguished fearful weary exploding_head grimacing cold_sweat scream flushed zany_face dizzy_face
  rage angry face_with_symbols_over_mouth mask thermometer_face head_bandage nauseated_face
  face_vomiting sneezing_face innocent cowboy clown lying_face shushing_face face_with_hand_over_mouth
  monocle_face nerd smiling_imp imp japanese_ogre japanese_goblin skull skull_crossbones ghost alien
  space_invader robot poop smiley_cat smile_cat joy_cat heart_eyes_cat smirk_cat kissing_cat scream_cat
  crying_cat_face pouting_cat see_no_evil hear_no_evil speak_no_evil
  thumbsup thumbsdown ok_hand punch fist left_facing_fist right_facing_fist wave clap raised_hands
  open_hands palms_up_together pray handshake writing_hand nail_care selfie muscle point_up point_up_2
  point_down point_left point_right middle_finger raised_hand raised_back_of_hand hand_splayed vulcan
  metal fingers_crossed call_me v love_you_gesture eyes eye ear nose lips tongue brain baby boy girl man
  woman older_man older_woman person_frowning person_with_pouting_face no_good ok_woman
  information_desk_person raising_hand bow face_palm shrug man_technologist woman_technologist ninja
  detective cop construction_worker guardsman santa angel princess prince dancer man_dancing runner walking
  bust_in_silhouette busts_in_silhouette family couple footprints
  heart white_heart orange_heart yellow_heart green_heart blue_heart purple_heart black_heart brown_heart broken_heart
  heart_exclamation two_hearts revolving_hearts heartbeat heartpulse sparkling_heart cupid gift_heart
  heart_decoration kiss love_letter 100 anger boom collision dizzy sweat_drops dash hole bomb speech_balloon
  speech_left thought_balloon anger_right zzz
  dog cat mouse hamster rabbit fox bear panda_face koala tiger lion_face cow pig frog monkey_face monkey
  chicken penguin bird baby_chick hatching_chick duck eagle owl bat wolf boar horse unicorn bee bug
  butterfly snail shell beetle ant spider spider_web scorpion turtle snake lizard octopus squid shrimp crab
  blowfish tropical_fish fish dolphin whale whale2 shark crocodile elephant rhino gorilla camel giraffe
  kangaroo deer sheep goat turkey rooster dove dragon dragon_face cactus christmas_tree evergreen_tree
  deciduous_tree palm_tree seedling herb shamrock four_leaf_clover bamboo leaves fallen_leaf maple_leaf
  mushroom ear_of_rice bouquet tulip rose wilted_rose sunflower blossom cherry_blossom hibiscus
  earth_americas earth_africa earth_asia globe_with_meridians full_moon new_moon crescent_moon
  first_quarter_moon_with_face last_quarter_moon_with_face sun_with_face star star2 sparkles zap fire
  comet sunny partly_sunny cloud white_sun_small_cloud thunder_cloud_rain cloud_rain cloud_snow
  cloud_lightning cloud_tornado fog rainbow umbrella snowflake snowman snowman2 droplet ocean volcano
  green_apple apple pear tangerine lemon banana watermelon grapes strawberry melon cherries peach pineapple
  kiwi avocado tomato eggplant cucumber carrot corn hot_pepper potato sweet_potato chestnut peanuts bread
  croissant french_bread pretzel pancakes cheese meat_on_bone poultry_leg bacon hamburger fries pizza
  hotdog sandwich taco burrito egg cooking salad popcorn bento rice_ball rice curry ramen spaghetti sushi
  fried_shrimp dumpling fortune_cookie oden icecream shaved_ice ice_cream doughnut cookie birthday cake
  pie chocolate_bar candy lollipop custard honey_pot baby_bottle milk coffee tea sake beer beers
  champagne_glass wine_glass tumbler_glass cocktail tropical_drink champagne spoon fork_and_knife
  soccer basketball football baseball tennis volleyball rugby_football 8ball ping_pong badminton hockey
  golf bow_and_arrow fishing_pole_and_fish boxing_glove martial_arts_uniform ski snowboarder
  trophy medal first_place second_place third_place military_medal reminder_ribbon ticket tickets
  circus_tent performing_arts art clapper microphone headphones musical_score musical_keyboard drum
  saxophone trumpet guitar violin game_die dart bowling video_game slot_machine jigsaw chess_pawn
  red_car taxi bus trolleybus race_car police_car ambulance fire_engine truck tractor bike motorcycle
  scooter rotating_light train train2 bullettrain_side metro airplane small_airplane helicopter rocket
  satellite_orbital ship sailboat speedboat anchor construction fuelpump busstop vertical_traffic_light
  traffic_light checkered_flag triangular_flag_on_post flag_white rainbow_flag pirate_flag
  house house_with_garden office hospital bank hotel school factory castle european_castle statue_of_liberty
  tokyo_tower stadium tent camping beach desert island mountain mount_fuji night_with_stars
  city_sunset sunrise bridge_at_night milky_way stars fireworks sparkler tada confetti_ball balloon gift
  ribbon christmas_tree jack_o_lantern
  watch iphone computer keyboard desktop printer mouse_three_button trackball joystick floppy_disk cd dvd
  vhs camera camera_with_flash video_camera movie_camera film_frames telephone phone telephone_receiver
  pager fax tv radio hourglass hourglass_flowing_sand alarm_clock stopwatch timer clock battery
  electric_plug bulb flashlight candle wastebasket oil moneybag dollar yen euro pound credit_card gem
  scales wrench hammer hammer_pick tools pick nut_and_bolt gear chains gun shield knife dagger crossed_swords
  crystal_ball telescope microscope pill syringe dna test_tube petri_dish thermometer broom basket
  toilet shower bathtub key old_key door couch bed lock unlock lock_with_ink_pen closed_lock_with_key
  bell no_bell mag mag_right label bookmark bookmark_tabs books book notebook ledger closed_book
  green_book blue_book orange_book newspaper scroll page_facing_up page_with_curl memo pencil pencil2
  pen_ballpoint pen_fountain paintbrush crayon briefcase file_folder open_file_folder card_index
  calendar date spiral_calendar_pad chart_with_upwards_trend chart_with_downwards_trend bar_chart
  clipboard pushpin round_pushpin paperclip paperclips straight_ruler triangular_ruler scissors
  card_box file_cabinet envelope email incoming_envelope envelope_with_arrow inbox_tray outbox_tray
  package mailbox postbox link mega loudspeaker
  white_check_mark heavy_check_mark ballot_box_with_check x negative_squared_cross_mark heavy_multiplication_x
  heavy_plus_sign heavy_minus_sign heavy_division_sign question grey_question exclamation
  grey_exclamation bangbang interrobang warning no_entry no_entry_sign stop_sign octagonal_sign
  sos ok new free up cool top soon back end on arrow_up arrow_down arrow_left arrow_right arrow_upper_right
  arrow_lower_right arrow_lower_left arrow_upper_left arrows_counterclockwise arrows_clockwise repeat
  rewind fast_forward arrow_forward pause_button play_pause stop_button record_button eject
  twisted_rightwards_arrows recycle infinity copyright registered tm hash asterisk zero one two three
  four five six seven eight nine keycap_ten information_source abc abcd capital_abcd symbols
  red_circle large_blue_circle white_circle black_circle large_orange_diamond large_blue_diamond
  small_orange_diamond small_blue_diamond small_red_triangle small_red_triangle_down white_large_square
  black_large_square white_medium_square black_medium_square radio_button white_square_button
  black_square_button heavy_dollar_sign currency_exchange trident_emblem beginner o o2 m parking
  vs radioactive biohazard peace yin_yang atom wheel_of_dharma om_symbol star_of_david cross
  place_of_worship aries taurus gemini cancer leo virgo libra scorpius sagittarius capricorn aquarius
  pisces ophiuchus bulb speaker mute sound loud_sound bell checkered_flag flag_black
  clock1 clock2 clock3 clock4 clock5 clock6 clock7 clock8 clock9 clock10 clock11 clock12
  hourglass man_in_business_suit_levitating ribbon trophy rocket ship construction_site
  thought_balloon fire_extinguisher
`

const KNOWN = new Set(NAMES.split(/\s+/).filter((name) => name !== ''))

/** The canonical name of a known emoji (aliases resolved); null for a name the set does not hold. */
export function canonicalEmojiName(name: string): string | null {
  const canonical = ALIASES.get(name) ?? name
  return KNOWN.has(canonical) ? canonical : null
}

export const UPVOTE = 'thumbsup'
export const DOWNVOTE = 'thumbsdown'
