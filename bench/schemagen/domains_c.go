package schemagen

func init() { domainSources = append(domainSources, domainsC) }

const domainsC = `
= video_games | a game publisher: studios, games, platforms, releases, players, purchases, achievements and play sessions
entity dev_studio/dev_studios 15
  name name gen company
  @place
  headcount count 10 2000
entity game_title/game_titles 80 gm
  title name gen title Shadow;Star;Iron;Crystal;Neon;Frozen;Ancient;Rogue;Pixel;Dragon / Legends;Odyssey;Tactics;Rush;Quest;Frontier;Arena;Chronicles;Empire;Drift
  dev_studio_id ref dev_studio developed by
  genre cat Action;RPG;Strategy;Puzzle;Sports;Racing;Shooter;Simulation;Platformer
  esrb_rating code E=Everyone;T=Teen;M=Mature;E10=Everyone 10+
  dev_budget? money 50000 90000000
lookup platform/platforms 7
  name name PC;PlayStation 5;Xbox Series;Switch;iOS;Android;Steam Deck;PlayStation 4
  handheld flag
entity game_release/game_releases 200 rel
  game_title_id ref game_title releasing
  platform_id ref platform on
  release_date date 2012 2024
  launch_price money 0 70
entity gamer/gamers 380 plyr
  gamertag name gen title Dark;Lucky;Silent;Turbo;Mega;Pro;Night;Frost / Wolf;Ninja;Gamer;Sniper;Panda;Ghost;Viper;Knight
  @place
  birth_year? count 1965 2012
  premium_member? flag
event purchase/purchases 700 purch
  gamer_id ref gamer bought by
  game_release_id ref game_release of
  purchase_date date 2018 2024
  price_paid money 0 70
  refunded? flag
lookup achievement/achievements 60
  name name First Blood;Speedrunner;Collector;Pacifist;Explorer;Sharpshooter;Survivor;Completionist;Treasure Hunter;Night Owl;Untouchable;Team Player;Marathon;Perfectionist;Strategist;Daredevil;Champion;Pathfinder;Lorekeeper;Trailblazer
  points_value count 5 100
link unlocked_achievement/unlocked_achievements 500
  gamer_id ref gamer earned by
  achievement_id ref achievement of
  unlocked_date date 2018 2024
event? play_session/play_sessions 800 sess
  gamer_id ref gamer played by
  game_title_id ref game_title playing
  session_date date 2023 2024
  minutes_played count 1 600
distractor? patch_note/patch_notes 50
  game_title_id ref game_title for
  version_label name gen serial v
  published_date date 2020 2024

= museum | an art museum: galleries, artists, artworks, acquisitions, loans to other institutions, exhibitions, visitors and tickets
entity gallery/galleries 14 gal
  name name East Wing;West Wing;Modern Hall;Sculpture Court;Asian Art;Photography;Renaissance Room;Textiles;Contemporary;Antiquities;Print Room;Decorative Arts;American Wing;Garden Pavilion
  floor_level count 0 4
  climate_controlled flag
entity painter/painters 100 artst
  @person 1450 1990
  movement? cat Impressionism;Baroque;Cubism;Surrealism;Renaissance;Modernism;Realism;Pop art;Abstract expressionism
  death_year? count 1500 2024
entity artwork/artworks 400 art
  title name gen title Portrait of a;Study of a;The;Still Life with a;View of the;Woman with a / Lady;Harbor;Garden;Horse;Bridge;Vase;River;Dancer;Mill;Cathedral
  painter_id ref painter created by
  gallery_id? ref gallery displayed in
  creation_year count 1450 2023
  medium cat Oil on canvas;Watercolor;Bronze;Marble;Photograph;Ink;Tempera;Mixed media
  insured_value money 1000 90000000
  height_cm? measure cm 10 600
event acquisition/acquisitions 250 acq
  artwork_id ref artwork of
  acquisition_date date 1950 2024
  acquisition_method code P=Purchase;G=Gift;B=Bequest;E=Exchange
  price_paid? money 500 60000000
  donor_name? name gen person
entity partner_institution/partner_institutions 20
  name name gen title Royal;National;Metropolitan;City;University;Modern / Museum;Gallery;Art Institute;Collection
  city city
event artwork_loan/artwork_loans 120
  artwork_id ref artwork lent
  partner_institution_id ref partner_institution lent to
  loan_start date 2015 2024
  loan_end after loan_start 30 400
  loan_fee? money 0 200000
entity exhibition/exhibitions 40 exh
  title name gen title Light and;Visions of;Masters of;Echoes of;The Age of / Color;Modernity;Empire;Silence;the Sea;Nature;Faith
  gallery_id ref gallery held in
  opening_date date 2015 2024
  closing_date after opening_date 30 240
  curator_name name gen person
link exhibited_work/exhibited_works 300
  exhibition_id ref exhibition shown in
  artwork_id ref artwork of
event? ticket_sale/ticket_sales 600 tix
  exhibition_id? ref exhibition for
  sale_date date 2022 2024
  ticket_type code A=Adult;C=Child;S=Senior;M=Member;ST=Student
  price money 0 40
distractor? gift_shop_item/gift_shop_items 40
  item_name name gen title Poster;Mug;Tote;Scarf;Notebook / Classic;Deluxe;Mini
  stock count 0 500

= zoo | a zoo: habitats, species, animals, keepers, feedings, veterinary checks and breeding
entity habitat/habitats 14 hab
  name name Savanna;Rainforest;Arctic;Desert;Aquarium;Aviary;Reptile House;Primate Forest;Wetlands;Mountain Ridge;Nocturnal House;Bamboo Grove;Coral Reef;Outback
  area_m2 measure m2 200 40000
  indoor flag
lookup species/species 30
  common_name name Lion;Giraffe;Zebra;Elephant;Penguin;Polar bear;Gorilla;Chimpanzee;Red panda;Komodo dragon;Flamingo;Sea lion;Tiger;Snow leopard;Meerkat;Okapi;Rhino;Hippo;Koala;Kangaroo;Orangutan;Bald eagle;Green turtle;Anaconda;Cheetah;Giant panda;Lemur;Wolf;Bison;Macaw
  taxon_class cat Mammal;Bird;Reptile;Amphibian;Fish
  conservation_status code LC=Least concern;NT=Near threatened;VU=Vulnerable;EN=Endangered;CR=Critically endangered
  diet cat Herbivore;Carnivore;Omnivore;Insectivore
entity animal/animals 260 anml
  pet_name name gen title Big;Little;Old;Young;Lady;Sir;Princess;Captain / Max;Luna;Kira;Bruno;Zara;Nala;Tank;Pip;Rosie;Juno;Koko;Simba
  species_id ref species of
  habitat_id ref habitat living in
  sex code F=Female;M=Male;U=Unknown
  arrival_date date 2000 2024
  weight_kg measure kg 0.2 6000
  mother_id? ref animal born to
entity keeper/keepers 40
  @person 1960 2002
  certification? cat Primates;Big cats;Marine;Birds;Reptiles;General
link keeper_assignment/keeper_assignments 120
  keeper_id ref keeper held by
  habitat_id ref habitat for
  start_date date 2015 2024
event feeding/feedings 800 fd
  animal_id ref animal fed to
  keeper_id? ref keeper given by
  feeding_date date 2024 2024
  food_item cat Hay;Meat;Fish;Fruit;Insects;Pellets;Seeds;Bamboo
  quantity_kg measure kg 0.01 90
event health_check/health_checks 300 chk
  animal_id ref animal examined
  check_date date 2020 2024
  vet_name name gen person
  body_condition_score count 1 9
  treatment_needed flag
event? breeding_event/breeding_events 60
  female_id ref animal involving
  male_id ref animal sired by
  event_date date 2015 2024
  offspring_count count 0 6
distractor? visitor_survey/visitor_surveys 100
  survey_date date 2024 2024
  satisfaction count 1 10
  favourite_exhibit? text Lions;Penguins;Pandas;Reptiles;Aquarium

= veterinary | a veterinary practice: clinics, vets, pet owners, pets, appointments, treatments, vaccinations and invoices
entity vet_clinic/vet_clinics 8
  name name gen title Happy Paws;Oak Tree;Riverbend;Companion;Family Pet;Greenfield;Sunrise / Animal Hospital;Vet Clinic;Pet Care
  @place
  emergency_service flag
entity veterinarian/veterinarians 30 vet
  @person 1955 1997
  vet_clinic_id ref vet_clinic working at
  board_specialty? cat Surgery;Dentistry;Dermatology;Internal medicine;Exotics
entity pet_owner/pet_owners 300 ownr
  @person 1940 2004
  preferred_contact? code E=Email;P=Phone;T=Text message
entity pet/pets 420
  name name gen title Max;Bella;Charlie;Luna;Lucy;Cooper;Daisy;Rocky;Milo;Coco / Sr.;Jr.;II;Paws;Bear;Belle;Boy;Girl
  pet_owner_id ref pet_owner owned by
  species_code code D=Dog;C=Cat;B=Bird;R=Rabbit;H=Horse;RE=Reptile
  breed? cat Labrador;Beagle;Siamese;Persian;Poodle;Mixed;Bulldog;Maine Coon;Cockatiel;Lop
  birth_date? date 2005 2024
  neutered? flag
  weight_lbs measure lb 0.2 1200
event appointment/appointments 700 appt
  pet_id ref pet for
  veterinarian_id ref veterinarian seen by
  appointment_date date 2022 2024
  visit_reason cat Checkup;Vaccination;Injury;Illness;Dental;Surgery;Follow-up
  no_show? flag
lookup treatment_type/treatment_types 15
  name name Exam;Rabies shot;Distemper shot;Dental cleaning;Spay;Neuter;X-ray;Blood panel;Microchip;Wound care;Deworming;Flea treatment;Ultrasound;Fracture repair;Allergy test
  list_price money 15 2500
link treatment_line/treatment_lines 900
  appointment_id ref appointment given during
  treatment_type_id ref treatment_type of
  charged_price money 10 3000
event invoice/invoices 600 inv
  appointment_id ref appointment for
  invoice_date date 2022 2024
  invoice_total money 20 6000
  paid_status code P=Paid;U=Unpaid;PP=Partially paid;W=Written off
distractor? kennel/kennels 30
  vet_clinic_id ref vet_clinic in
  kennel_size code S=Small;M=Medium;L=Large
  occupied? flag

= pharmacy | a pharmacy chain: stores, pharmacists, prescribers, patients, medications, prescriptions, fills and inventory
entity pharmacy_store/pharmacy_stores 15 phcy
  name name gen title Main Street;Corner;Wellness;Family;Care;Health / Pharmacy;Drugs;Apothecary;Rx
  @place
  drive_through? flag
  open_24_hours? flag
entity pharmacist/pharmacists 45
  @person 1955 1998
  pharmacy_store_id ref pharmacy_store working at
  license_state state
entity prescriber/prescribers 60 prscbr
  @person 1950 1993
  npi_number name gen serial 1
  practice_type cat Family medicine;Pediatrics;Cardiology;Psychiatry;Dermatology;Dentistry
entity customer_patient/customer_patients 380 pt
  @person 1930 2020
  insurance_plan? cat Medicare Part D;Medicaid;BlueCross;Aetna;Cigna;Self-pay
entity medication/medications 60 med
  brand_name name gen title Zy;Lo;Pra;Ne;Ce;Ami;Flu;Meto;Ator;Val / rex;vix;tor;lin;dex;pro;zol;mab;fen;cor
  generic_name? text amoxicillin;atorvastatin;lisinopril;metformin;sertraline;omeprazole;levothyroxine;amlodipine;albuterol;gabapentin
  dea_schedule code 0=Not controlled;2=Schedule II;3=Schedule III;4=Schedule IV;5=Schedule V
  unit_price money 0.05 90
  generic flag
event prescription_order/prescription_orders 500 rx
  customer_patient_id ref customer_patient written for
  prescriber_id ref prescriber written by
  medication_id ref medication of
  written_date date 2022 2024
  quantity count 7 180
  refills_allowed count 0 11
event fill/fills 800
  prescription_order_id ref prescription_order dispensing
  pharmacy_store_id ref pharmacy_store filled at
  pharmacist_id? ref pharmacist verified by
  fill_date date 2022 2024
  copay money 0 150
  insurance_paid? money 0 2000
link? stock_level/stock_levels 500
  pharmacy_store_id ref pharmacy_store held at
  medication_id ref medication of
  units_on_hand count 0 3000
  reorder_point count 10 400
distractor? flu_clinic_day/flu_clinic_days 30
  pharmacy_store_id ref pharmacy_store hosted by
  clinic_date date 2023 2024
  shots_given count 0 300

= public_transport | a city transit agency: lines, stops, vehicles, operators, trips, stop times, fares and incidents
entity transit_line/transit_lines 20 ln
  line_name name gen title Red;Blue;Green;Orange;Silver;Gold;Purple;Crosstown;Harbor;Airport / Line;Express;Limited;Local;Shuttle
  transit_mode code B=Bus;LR=Light rail;SUB=Subway;F=Ferry;TR=Tram
  opened_year count 1950 2023
entity transit_stop/transit_stops 200 stp
  stop_name name gen title Main;Oak;Pine;Market;Union;Park;Broad;Elm;Lake;Church;Hill;Mill / St;Ave;Station;Plaza;Terminal;Square
  zone code 1=Zone 1 downtown;2=Zone 2;3=Zone 3 suburbs
  wheelchair_accessible flag
  shelter? flag
link line_stop/line_stops 400
  transit_line_id ref transit_line served by
  transit_stop_id ref transit_stop at
  stop_sequence count 1 40
entity transit_vehicle/transit_vehicles 90 veh
  fleet_number name gen serial V
  transit_mode code B=Bus;LR=Light rail;SUB=Subway;F=Ferry;TR=Tram
  seating_capacity count 20 300
  in_service_year count 1995 2024
  fuel_type? cat Diesel;Electric;Hybrid;CNG
entity operator/operators 120 oper
  @person 1960 2003
  seniority_years count 0 40
  depot? cat North Depot;South Depot;Central Depot;East Yard
event trip/trips 600
  transit_line_id ref transit_line run on
  transit_vehicle_id ref transit_vehicle run with
  operator_id ref operator driven by
  service_date date 2024 2024
  boardings count 0 900
  minutes_late? count 0 60
event fare_transaction/fare_transactions 900 fare
  trip_id ref trip boarded on
  fare_type code A=Adult;R=Reduced;S=Student;T=Transfer;F=Free
  fare_paid money 0 7
  payment_media? cat Card;Cash;Mobile app;Paper ticket
  tap_date date 2024 2024
event? incident_report/incident_reports 80
  trip_id ref trip during
  incident_date date 2023 2024
  incident_type cat Collision;Medical;Fare dispute;Breakdown;Vandalism
  injuries count 0 5
distractor? bench_advert/bench_adverts 40
  transit_stop_id ref transit_stop at
  advertiser name gen company
  monthly_fee money 50 900

= elections | a state's elections: counties, precincts, parties, candidates, contests, candidacies, results and turnout
entity county/counties 20 cnty
  name name Adams;Baker;Clark;Douglas;Franklin;Grant;Hamilton;Jackson;Lincoln;Madison;Marion;Monroe;Polk;Shelby;Union;Warren;Wayne;Greene;Lake;Benton;Carroll;Fayette
  population count 5000 2000000
  urban_rural code U=Urban;S=Suburban;R=Rural
entity precinct/precincts 160 pct
  county_id ref county located in
  precinct_code name gen serial P
  registered_voters count 200 9000
  polling_place? name gen title Lincoln;Oak;Central;Riverside;First Baptist;Grange / Elementary;Library;Fire Hall;Community Center;Church
lookup party/parties 6
  name name Democratic;Republican;Libertarian;Green;Independent;Constitution;Working Families
  abbreviation text DEM;REP;LIB;GRN;IND;CON;WF
entity candidate/candidates 90 cand
  @person 1940 1995
  party_id ref party nominated by
  incumbent flag
  occupation? cat Attorney;Teacher;Business owner;Farmer;Physician;Veteran;Engineer
entity contest/contests 30
  office_title cat Governor;State Senate;State House;Attorney General;County Commission;Mayor;School Board;Sheriff
  election_date date 2016 2024
  district_number? count 1 60
  election_type code G=General;P=Primary;S=Special;R=Runoff
link candidacy/candidacies 120
  contest_id ref contest running in
  candidate_id ref candidate of
  ballot_position count 1 6
  campaign_spending? money 1000 9000000
link precinct_result/precinct_results 900 res
  precinct_id ref precinct counted in
  candidate_id ref candidate for
  votes count 0 4000
  absentee_votes? count 0 900
event? turnout_report/turnout_reports 300
  precinct_id ref precinct about
  report_date date 2016 2024
  ballots_cast count 50 9000
  provisional_ballots? count 0 80
distractor? poll_worker_training/poll_worker_trainings 40
  county_id ref county held in
  session_date date 2023 2024
  trainees count 5 80

= courts | a state court system: courthouses, judges, attorneys, parties, cases, hearings, charges and verdicts
entity courthouse/courthouses 12 crt
  name name gen title Jackson;Lincoln;Central;Federal Plaza;Riverside;Old Town / County Courthouse;Justice Center;Hall of Justice
  @place
  courtroom_count count 2 40
entity judge/judges 40 jdg
  @person 1945 1985
  courthouse_id ref courthouse presiding at
  appointed_year count 1990 2024
  appointment_method code E=Elected;A=Appointed;R=Retention
entity attorney/attorneys 150 atty
  @person 1950 1998
  law_firm? name gen company
  bar_admission_year count 1975 2023
  public_defender? flag
entity litigant/litigants 380 ltgnt
  @person 1940 2006
  represented_by_id? ref attorney represented by
entity court_case/court_cases 400 case
  docket_number name gen serial CV
  courthouse_id ref courthouse filed in
  judge_id ref judge assigned to
  case_type code CR=Criminal;CV=Civil;FA=Family;PR=Probate;TR=Traffic
  filing_date date 2015 2024
  closed_date? after filing_date 30 1500
link case_party/case_parties 700
  court_case_id ref court_case party to
  litigant_id ref litigant of
  party_role cat Plaintiff;Defendant;Petitioner;Respondent;Witness
event hearing/hearings 700 hrng
  court_case_id ref court_case held for
  hearing_date date 2015 2024
  hearing_type cat Arraignment;Motion;Trial;Sentencing;Status conference
  minutes_duration count 5 480
  continued? flag
event? verdict/verdicts 200
  court_case_id ref court_case deciding
  verdict_date date 2016 2024
  outcome code G=Guilty;NG=Not guilty;D=Dismissed;S=Settled;P=Plea
  fine_amount? money 50 500000
distractor? jury_summons/jury_summonses 100
  summons_date date 2024 2024
  responded flag

= fitness_club | a chain of fitness clubs: clubs, trainers, members, membership plans, classes, bookings, check-ins and payments
entity club/clubs 10
  name name gen title Iron;Peak;Pulse;Core;Flex;Vital;Summit / Fitness;Gym;Athletic Club;Studio
  @place
  pool? flag
  floor_area_sqft measure sqft 3000 60000
lookup membership_plan/membership_plans 6
  name name Basic;Plus;Premium;Student;Corporate;Off-peak;Family
  monthly_dues money 10 200
  contract_months count 0 24
entity trainer/trainers 50 trnr
  @person 1965 2002
  club_id ref club working at
  certification cat NASM;ACE;ACSM;NSCA;Yoga Alliance
  hourly_rate money 25 150
entity club_member/club_members 400 mbr
  @person 1945 2008
  membership_plan_id ref membership_plan subscribed to
  home_club_id ref club registered at
  join_date date 2015 2024
  frozen? flag
  referred_by_id? ref club_member referred by
entity fitness_class/fitness_classes 60
  class_name cat Spin;Yoga;Pilates;HIIT;Zumba;Boxing;Barre;CrossFit;Aqua aerobics
  club_id ref club held at
  trainer_id ref trainer led by
  weekday code 1=Monday;2=Tuesday;3=Wednesday;4=Thursday;5=Friday;6=Saturday;7=Sunday
  capacity count 8 40
link class_booking/class_bookings 600
  club_member_id ref club_member made by
  fitness_class_id ref fitness_class for
  booking_date date 2024 2024
  attended? flag
event check_in/check_ins 900
  club_member_id ref club_member by
  club_id ref club at
  check_in_date date 2024 2024
  minutes_in_club? count 10 240
event? dues_payment/dues_payments 700
  club_member_id ref club_member paid by
  payment_date date 2023 2024
  amount money 10 300
  failed? flag
distractor? locker/lockers 80
  club_id ref club in
  locker_number count 1 400
  broken? flag

= streaming | a video streaming service: shows, seasons, episodes, genres, subscribers, profiles, viewing events and ratings
lookup show_genre/show_genres 12
  name name Drama;Comedy;Crime;Documentary;Reality;Sci-fi;Fantasy;Kids;Anime;Thriller;Romance;Horror
entity show/shows 80
  title name gen title Dark;Lost;Royal;Wild;Silent;Brave;Hidden;Broken;Bright / Waters;Empire;Signals;Souls;Heights;Lies;Roads;Kingdom;Frontier
  show_genre_id ref show_genre in
  original_language cat English;Spanish;Korean;Japanese;French;German;Hindi
  maturity_rating code TV-Y=Children;TV-PG=Parental guidance;TV-14=14 and over;TV-MA=Mature
  original_production flag
entity show_season/show_seasons 200 ssn
  show_id ref show of
  season_number count 1 12
  premiere_date date 2010 2024
  production_cost? money 100000 200000000
entity episode/episodes 600 ep
  show_season_id ref show_season in
  episode_number count 1 24
  episode_title name gen title The;A;One;Last;First / Night;Door;Choice;Storm;Return;Promise;Secret;Goodbye
  runtime_minutes count 18 90
entity account_holder/account_holders 300 acct
  @person 1945 2006
  plan_tier code B=Basic with ads;S=Standard;P=Premium
  signup_date date 2015 2024
  country_code? code US=United States;CA=Canada;GB=United Kingdom;MX=Mexico;DE=Germany
entity viewer_profile/viewer_profiles 600 prof
  account_holder_id ref account_holder belonging to
  profile_name name gen title Mom;Dad;Kids;Guest;Grandma;Alex;Sam;Jordan / 1;2;TV;Room;Main
  kids_profile flag
event viewing/viewings 900 view
  viewer_profile_id ref viewer_profile watched by
  episode_id ref episode of
  view_date date 2023 2024
  minutes_watched count 1 90
  device_type? cat TV;Phone;Tablet;Laptop;Console
link? show_rating/show_ratings 400
  viewer_profile_id ref viewer_profile given by
  show_id ref show for
  thumbs code 1=Thumbs up;0=Thumbs down;2=Love it
distractor? cdn_node/cdn_nodes 30
  node_code name gen serial CDN
  region_label text us-east;us-west;eu-central;ap-south
  capacity_gbps measure Gbps 10 400

= publishing | a book publisher: imprints, writers, editors, manuscripts, contracts, editions, print runs and royalty statements
entity imprint/imprints 8
  name name Harbor Press;Lantern Books;Red Fox;Quill & Ink;Northlight;Meridian House;Bluebird;Atlas Editions;Greenleaf
  founded_year count 1920 2015
  focus cat Literary fiction;Genre fiction;Nonfiction;Children;Academic
entity writer/writers 120 wrtr
  @person 1940 1998
  literary_agent? name gen company
  debut_year? count 1970 2023
entity editor/editors 25 ed
  @person 1955 1997
  imprint_id ref imprint working for
  senior_editor_id? ref editor reporting to
entity manuscript/manuscripts 220 ms
  working_title name gen title The;A;Our;Every;No;Last / Summer;Orchard;Silence;Country;Daughter;Atlas;Machine;Ocean;Winter;Secret
  writer_id ref writer written by
  editor_id? ref editor edited by
  submitted_date date 2012 2024
  word_count count 20000 220000
  manuscript_status code S=Submitted;R=Under review;A=Accepted;X=Rejected;P=Published
event book_contract/book_contracts 120 cntrct
  manuscript_id ref manuscript covering
  imprint_id ref imprint signed with
  signed_date date 2012 2024
  advance_amount money 1000 2000000
  royalty_percent measure percent 5 20
entity edition/editions 180 edn
  manuscript_id ref manuscript of
  edition_format code HC=Hardcover;PB=Paperback;EB=E-book;AB=Audiobook
  release_date date 2013 2024
  list_price money 1 60
event print_run/print_runs 250
  edition_id ref edition printing
  print_date date 2013 2024
  copies_printed count 500 200000
  printer_name? name gen company
event royalty_statement/royalty_statements 500 roy
  edition_id ref edition for
  statement_date date 2014 2024
  units_sold count 0 90000
  royalty_due money 0 500000
distractor? office_supply_order/office_supply_orders 40
  order_date date 2023 2024
  item_count count 1 200
  vendor name gen company
`
